import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { NoticeListDoc } from './notice.doc.js';
import { NoticeService, type NoticeView } from './notice.service.js';

/** Notices about the merchant's webhooks: failing for an hour, disabled after failing. */
@ApiTags('webhooks')
@ApiSessionRoutes()
@UseGuards(SessionGuard)
@Controller('api/notices')
export class NoticeController {
  constructor(private readonly notices: NoticeService) {}

  @Get()
  @ApiOperation({
    summary: 'Notices about your webhooks',
    description: 'Of the last 30 days, newest first (at most 20): a webhook failing for an hour, one disabled.',
  })
  @ApiOkResponse({ type: NoticeListDoc })
  @ApiProblems([503])
  async list(@CurrentSession() session: SessionContext): Promise<{ data: NoticeView[] }> {
    return { data: await this.notices.recent(session.merchantId) };
  }
}
