import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AmqpClient } from '#messaging';
import { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';

/**
 * Graceful shutdown (SIGTERM): stop taking messages, let attempts in flight finish and be logged (up to the
 * delivery timeout), and only then let the database and broker connections close. Whatever is still
 * unsettled is redelivered by the broker to another dispatcher.
 */
@Injectable()
export class DispatcherLifecycle implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');

  constructor(
    private readonly amqp: AmqpClient,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const inFlight = this.amqp.inFlightCount;
    this.logger.log(`${signal ?? 'shutdown'}: finishing ${inFlight} message(s) in flight`);
    await this.amqp.stopConsuming(this.config.timeoutMs + 2_000);
  }
}
