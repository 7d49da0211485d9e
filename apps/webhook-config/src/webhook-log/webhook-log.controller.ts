import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { ListLogsQuery } from './dtos/list-logs.query.js';
import { WebhookLogPageDoc } from './webhook-log.doc.js';
import { WebhookLogService } from './webhook-log.service.js';
import type { WebhookLogView } from './webhook-log.view.js';

/** A webhook's delivery log, one entry per attempt, newest first. */
@ApiTags('webhooks')
@ApiSessionRoutes()
@UseGuards(SessionGuard)
@Controller('api/webhooks/:id/logs')
export class WebhookLogController {
  constructor(private readonly logs: WebhookLogService) {}

  @Get()
  @ApiOperation({
    summary: "A webhook's delivery log",
    description: 'One entry per attempt, newest first. Keyset pagination: pass `nextCursor` as `cursor`.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: WebhookLogPageDoc })
  @ApiProblems([400, 404, 503])
  list(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Query() query: ListLogsQuery,
  ): Promise<{ data: WebhookLogView[]; nextCursor: string | null }> {
    return this.logs.list(session.merchantId, id, query);
  }
}
