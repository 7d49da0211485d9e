import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { CurrentCliPrincipal, CliKeyGuard } from './cli-key.guard.js';
import type { CliPrincipal } from './cli-key.lookup.js';
import { CliSessionStartedDoc, CliTriggeredDoc } from './cli-session.doc.js';
import { CliSessionService, type CliSessionStarted } from './cli-session.service.js';
import { StartCliSessionDto } from './dtos/start-cli-session.dto.js';
import { TriggerCliEventDto } from './dtos/trigger-cli-event.dto.js';

/**
 * The `payments` command line's routes (docs/cli-protocol.md): authenticated by the merchant's API key, not by the
 * backend's session (no cookie, so no CSRF token either). The stream of a session is a WebSocket (CliSessionGateway).
 */
@ApiTags('cli')
@ApiSecurity('apiKey')
@ApiProblems([401], { 401: 'No API key, a malformed one, or one no integration has (`urn:problem:api-key`).' })
@UseGuards(CliKeyGuard)
@Controller('api/cli')
export class CliSessionController {
  constructor(private readonly sessions: CliSessionService) {}

  @Post('sessions')
  @ApiOperation({
    summary: 'Start a listening session (payments listen)',
    description:
      'The session gets the events of the key’s integration, as a webhook linked to it would, rendered in its version ' +
      'and content type and signed with its own secret; its command line receives them over the WebSocket ' +
      '`GET /api/cli/sessions/{id}/stream` (docs/cli-protocol.md).',
  })
  @ApiCreatedResponse({ type: CliSessionStartedDoc })
  @ApiProblems([400, 429, 503], {
    429: 'The integration has 100 live sessions (`urn:problem:too-many-cli-sessions`).',
    503: 'The message broker did not take the session’s queue in time.',
  })
  start(@CurrentCliPrincipal() principal: CliPrincipal, @Body() body: StartCliSessionDto): Promise<CliSessionStarted> {
    return this.sessions.start(principal, body);
  }

  @Post('trigger')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a sample event to the listening sessions (payments trigger)',
    description:
      'The catalog’s sample of the kind, with new ids and times, of the key’s integration: only that integration’s ' +
      'listening sessions that selected the kind receive it, no webhook.',
  })
  @ApiAcceptedResponse({ type: CliTriggeredDoc })
  @ApiProblems([400, 503], { 503: 'The message broker did not confirm the event in time.' })
  trigger(@CurrentCliPrincipal() principal: CliPrincipal, @Body() body: TriggerCliEventDto) {
    return this.sessions.trigger(principal, body.kind);
  }
}
