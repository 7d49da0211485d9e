import { ApiProperty } from '@nestjs/swagger';
import type { IntegrationView } from './integration.repository.js';

/** OpenAPI: an integration of the signed-in merchant (never its key hash or prefix). */
export class IntegrationDoc implements IntegrationView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'Online shop' }) name!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class IntegrationListDoc {
  @ApiProperty({ type: [IntegrationDoc] }) data!: IntegrationDoc[];
}
