import { ApiProperty } from '@nestjs/swagger';
import type { BackendUserView } from './backend-user.service.js';

/** OpenAPI: a merchant backend login. */
export class BackendUserDoc implements BackendUserView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'owner@shop.example', description: 'Trimmed and lower-case.' }) email!: string;
}
