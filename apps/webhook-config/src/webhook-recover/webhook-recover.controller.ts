import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { RecoverDto } from './dtos/recover.dto.js';
import { RecoverProgressDoc, RecoverStartedDoc } from './webhook-recover.doc.js';
import { WebhookRecoverService, type RecoverView } from './webhook-recover.service.js';

/** Recover: send again what failed or was skipped since a time, as a job the dispatcher runs (CONTRACT §5). */
@ApiTags('webhooks')
@ApiSessionRoutes()
@ApiParam({ name: 'id', format: 'uuid' })
@ApiProblems([404, 503], { 503: 'The command could not be queued (the broker did not confirm), or see Retry-After.' })
@UseGuards(SessionGuard)
@Controller('api/webhooks/:id/recover')
export class WebhookRecoverController {
  constructor(private readonly recovers: WebhookRecoverService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send what failed or was skipped since a time again',
    description:
      'Every event since `since` whose latest outcome for this webhook is failed or skipped is sent again (a new ' +
      'attempt, the same webhook-id), each once, within the webhook’s maxPerSecond. One recover per webhook at a ' +
      'time; its progress: GET. The log shows them as they go.',
  })
  @ApiAcceptedResponse({ type: RecoverStartedDoc })
  @ApiProblems([400, 409], {
    400: 'since is not a date and time in the past within the log retention.',
    409:
      'The webhook is disabled (`urn:problem:webhook-disabled`): enable it first; or a recover of it is running ' +
      '(`urn:problem:recover-running`, the detail names it): wait for it or cancel it.',
  })
  start(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Body() body: RecoverDto,
  ): Promise<{ id: string | null; count: number }> {
    return this.recovers.start(session.merchantId, id, body.since);
  }

  @Get()
  @ApiOperation({ summary: 'The latest recover’s progress' })
  @ApiOkResponse({ type: RecoverProgressDoc })
  progress(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
  ): Promise<RecoverView> {
    return this.recovers.progress(session.merchantId, id);
  }

  @Delete()
  @ApiOperation({
    summary: 'Cancel the running recover',
    description:
      'Nothing more of it is sent, including its deliveries already queued. Answers the latest recover’s progress ' +
      '(unchanged when none was running).',
  })
  @ApiOkResponse({ type: RecoverProgressDoc })
  cancel(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
  ): Promise<RecoverView> {
    return this.recovers.cancel(session.merchantId, id);
  }
}
