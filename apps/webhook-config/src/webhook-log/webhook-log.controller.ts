import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ListLogsQuery } from './dtos/list-logs.query.js';
import { WebhookLogService } from './webhook-log.service.js';
import type { WebhookLogView } from './webhook-log.view.js';

/** A webhook's delivery log, one entry per attempt, newest first. */
@ApiTags('webhooks')
@UseGuards(SessionGuard)
@Controller('api/webhooks/:id/logs')
export class WebhookLogController {
  constructor(private readonly logs: WebhookLogService) {}

  @Get()
  list(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Query() query: ListLogsQuery,
  ): Promise<{ data: WebhookLogView[]; nextCursor: string | null }> {
    return this.logs.list(session.merchantId, id, query);
  }
}
