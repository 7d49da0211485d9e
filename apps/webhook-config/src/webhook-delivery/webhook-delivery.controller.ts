import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { SendTestDto } from './dtos/send-test.dto.js';
import { QueuedDeliveryDoc } from './webhook-delivery.doc.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

/** Deliver now: a sample event, or the event of a log entry again. 202: queued, the log shows the outcome. */
@ApiTags('webhooks')
@ApiSessionRoutes()
@ApiParam({ name: 'id', format: 'uuid' })
@ApiProblems([404, 503], { 503: 'The message could not be queued (the broker did not confirm), or see Retry-After.' })
@UseGuards(SessionGuard)
@Controller('api/webhooks/:id')
export class WebhookDeliveryController {
  constructor(private readonly deliveries: WebhookDeliveryService) {}

  @Post('test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a sample event now',
    description:
      'A sample event of a kind the webhook receives, in its version and content type: of `eventType` when given ' +
      '(the event catalog’s “Send this example”), else of the first kind it selects. The body is optional. The log ' +
      'shows the outcome.',
  })
  @ApiBody({ type: SendTestDto, required: false })
  @ApiAcceptedResponse({ type: QueuedDeliveryDoc })
  @ApiProblems([400], { 400: '`eventType` is not a kind of event, or not one the webhook selects.' })
  test(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Body() body: SendTestDto,
  ): Promise<{ deliveryId: string }> {
    return this.deliveries.sendTest(session.merchantId, id, body.eventType ?? undefined);
  }

  @Post('logs/:logId/resend')
  @HttpCode(202)
  @ApiOperation({
    summary: "Send a log entry's event again",
    description: "The same webhook-id and body, signed anew, to the webhook's current URL. The log shows the outcome.",
  })
  @ApiParam({ name: 'logId', format: 'uuid' })
  @ApiAcceptedResponse({ type: QueuedDeliveryDoc })
  @ApiProblems([409, 410], {
    409: 'The delivery was attempted 50 times already (`urn:problem:resend-limit`).',
    410: 'The delivery is older than the log retention and no longer kept (`urn:problem:delivery-expired`).',
  })
  resend(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Param('logId', resourceId('log entry')) logId: string,
  ): Promise<{ deliveryId: string }> {
    return this.deliveries.resend(session.merchantId, id, logId);
  }
}
