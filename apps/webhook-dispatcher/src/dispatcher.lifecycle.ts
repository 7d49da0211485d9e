import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AmqpClient } from '#messaging';
import { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { DeliveryService } from './delivery/delivery.service.js';

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
    private readonly deliveries: DeliveryService,
  ) {}

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const inFlight = this.amqp.inFlightCount;
    this.logger.log(`${signal ?? 'shutdown'}: finishing ${inFlight} message(s) in flight`);
    const graceMs = this.config.timeoutMs + 2_000;
    await this.amqp.stopConsuming(graceMs);
    // Attempts whose messages were handed over: their stand-ins attempt them again if they are cut short here.
    await this.deliveries.settleDetached(graceMs);
  }
}
