import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { CliSessionListDoc, CliSessionLogPageDoc } from './cli-session.doc.js';
import { CliSessionService } from './cli-session.service.js';
import { ListCliLogsQuery } from './dtos/list-cli-logs.query.js';

/** The backend's view of the merchant's `payments listen` sessions: which are live, and what each forwarded. */
@ApiTags('cli')
@ApiSessionRoutes()
@UseGuards(SessionGuard)
@Controller('api/cli-sessions')
export class CliSessionBackendController {
  constructor(private readonly sessions: CliSessionService) {}

  @Get()
  @ApiOperation({ summary: 'The merchant’s live listening sessions (payments listen), newest first' })
  @ApiOkResponse({ type: CliSessionListDoc })
  async list(@CurrentSession() session: SessionContext) {
    return { data: await this.sessions.listLive(session.merchantId) };
  }

  @Get(':id/logs')
  @ApiOperation({ summary: 'What a listening session forwarded, and what the local URL answered; newest first' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: CliSessionLogPageDoc })
  @ApiProblems([400, 404])
  logs(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('listening session')) id: string,
    @Query() query: ListCliLogsQuery,
  ) {
    return this.sessions.logs(session.merchantId, id, query.limit ?? 20, query.cursor);
  }
}
