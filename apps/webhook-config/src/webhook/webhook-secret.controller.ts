import { Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { RotatedSecretDoc, SecretDoc } from './webhook.doc.js';
import { WebhookSecretService, type RotatedSecret, type SecretView } from './webhook-secret.service.js';

/** Reveal and rotate a webhook's signing secret. */
@ApiTags('webhooks')
@ApiSessionRoutes()
@ApiParam({ name: 'id', format: 'uuid' })
@ApiProblems([404, 503])
@UseGuards(SessionGuard)
@Controller('api/webhooks/:id/secret')
export class WebhookSecretController {
  constructor(private readonly secrets: WebhookSecretService) {}

  @Get()
  @ApiOperation({ summary: "Reveal a webhook's signing secret" })
  @ApiOkResponse({ type: SecretDoc })
  reveal(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
  ): Promise<SecretView> {
    return this.secrets.reveal(session.merchantId, id);
  }

  @Post('rotate')
  @HttpCode(200)
  @ApiOperation({
    summary: "Rotate a webhook's signing secret",
    description: 'The replaced secret keeps signing for 24 hours (the reveal says until when).',
  })
  @ApiOkResponse({ type: RotatedSecretDoc })
  rotate(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
  ): Promise<RotatedSecret> {
    return this.secrets.rotate(session.merchantId, id);
  }
}
