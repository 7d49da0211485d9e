import { Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { WebhookSecretService, type RotatedSecret, type SecretView } from './webhook-secret.service.js';

/** Reveal and rotate a webhook's signing secret. */
@ApiTags('webhooks')
@UseGuards(SessionGuard)
@Controller('api/webhooks/:id/secret')
export class WebhookSecretController {
  constructor(private readonly secrets: WebhookSecretService) {}

  @Get()
  reveal(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
  ): Promise<SecretView> {
    return this.secrets.reveal(session.merchantId, id);
  }

  @Post('rotate')
  @HttpCode(200)
  rotate(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
  ): Promise<RotatedSecret> {
    return this.secrets.rotate(session.merchantId, id);
  }
}
