import { Module } from '@nestjs/common';
import { SessionModule } from '../session/session.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { CliKeyGuard } from './cli-key.guard.js';
import { CliKeyLookup } from './cli-key.lookup.js';
import { CliSessionBackendController } from './cli-session-backend.controller.js';
import { CliSessionController } from './cli-session.controller.js';
import { CliSessionGateway } from './cli-session.gateway.js';
import { CliSessionQueues } from './cli-session.queues.js';
import { CliSessionRepository } from './cli-session.repository.js';
import { CliSessionService } from './cli-session.service.js';

/**
 * `payments listen` and `payments trigger` (issue #34, CONTRACT §8; docs/cli-protocol.md): sessions started with the
 * merchant's API key, their events streamed over a WebSocket from one RabbitMQ queue each, what the command line
 * forwarded logged for the backend.
 */
@Module({
  imports: [SessionModule, WebhookModule],
  controllers: [CliSessionController, CliSessionBackendController],
  providers: [CliKeyLookup, CliKeyGuard, CliSessionRepository, CliSessionQueues, CliSessionService, CliSessionGateway],
})
export class CliSessionModule {}
