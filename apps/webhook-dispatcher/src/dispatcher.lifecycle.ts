import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { AmqpClient } from '#messaging';
import { DatabaseRetry } from './common/database-retry.js';
import { WebhookDispatcherConfig } from './config/webhook-dispatcher.config.js';
import { DeliveryService } from './delivery/delivery.service.js';
import { FanOutService } from './fan-out/fan-out.service.js';

/**
 * Graceful shutdown (SIGTERM): stop taking messages, let attempts in flight finish and be logged (up to the
 * delivery timeout; work waiting out a database outage waits with them), and only then let the database and broker
 * connections close. Whatever is still
 * unsettled is redelivered by the broker to another dispatcher.
 */
@Injectable()
export class DispatcherLifecycle implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');

  constructor(
    private readonly amqp: AmqpClient,
    private readonly config: WebhookDispatcherConfig,
    private readonly deliveries: DeliveryService,
    private readonly fanOut: FanOutService,
    private readonly databaseRetry: DatabaseRetry,
  ) {}

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const inFlight = this.amqp.inFlightCount;
    this.logger.log(
      `${signal ?? 'shutdown'}: finishing ${inFlight} message(s) in flight and ` +
        `${this.deliveries.detachedCount} attempt(s) whose messages were handed to the guard queue`,
    );
    const graceMs = this.config.timeoutMs + 2_000;
    // The events in flight start no more first attempts: what they have not started goes to the delivery queue.
    this.fanOut.stopFirstAttempts();
    await this.amqp.stopConsuming(graceMs);
    // Attempts whose messages were handed over: their stand-ins attempt them again if they are cut short here.
    await this.deliveries.settleDetached(graceMs);
    // Grace is over: work still waiting for the database gives up, so the log's drain and the closing connections
    // are not held up by it; its messages go back to the broker.
    this.databaseRetry.stop();
  }
}
