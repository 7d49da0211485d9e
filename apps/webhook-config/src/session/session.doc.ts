import { ApiProperty } from '@nestjs/swagger';
import type { SessionView } from './session.view.js';

/** OpenAPI: the signed-in user and the session's CSRF token. */
export class SessionDoc implements SessionView {
  @ApiProperty({ example: 'owner@shop.example' }) email!: string;
  @ApiProperty({ description: 'Send as `X-CSRF-Token` on every POST, PATCH and DELETE of this session.' })
  csrfToken!: string;
}
