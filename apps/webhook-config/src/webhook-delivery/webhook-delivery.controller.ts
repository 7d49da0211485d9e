import { Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

/** Deliver now: a sample event, or the event of a log entry again. 202: queued, the log shows the outcome. */
@ApiTags('webhooks')
@UseGuards(SessionGuard)
@Controller('api/webhooks/:id')
export class WebhookDeliveryController {
  constructor(private readonly deliveries: WebhookDeliveryService) {}

  @Post('test')
  @HttpCode(202)
  test(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
  ): Promise<{ deliveryId: string }> {
    return this.deliveries.sendTest(session.merchantId, id);
  }

  @Post('logs/:logId/resend')
  @HttpCode(202)
  resend(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Param('logId', resourceId('log entry')) logId: string,
  ): Promise<{ deliveryId: string; attempt: number }> {
    return this.deliveries.resend(session.merchantId, id, logId);
  }
}
