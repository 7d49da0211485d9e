import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { buildWebhookHeaders, type WebhookContentType } from '#domain';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  ROUTING_KEYS,
  retryQueueName,
  type DeliveryMessage,
  type DeliverySnapshot,
} from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryRepository } from '../fan-out/delivery.repository.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookCache } from '../webhook/webhook.cache.js';
import { DeliveryLogWriter } from './delivery-log.writer.js';
import { HttpSender } from './http.sender.js';
import { nextStep } from './retry.policy.js';
import { WebhookSlots } from './webhook-slots.js';

/** Concurrent attempts per webhook and process in the delivery queue (see WebhookSlots). */
export const MAX_IN_FLIGHT_PER_WEBHOOK = 16;
/** An attempt running longer than this makes its webhook slow. */
const SLOW_WEBHOOK_MS = 1_000;
/** How long a webhook stays slow after a slow attempt. */
const SLOW_FOR_MS = 60_000;

/** Which queue a delivery message came from. */
export type Lane = 'normal' | 'slow';

export type AttemptOutcome = 'attempted' | 'moved-to-slow-lane' | 'dropped';

/** One attempt of one delivery: sign the stored body, POST it, log it, and schedule what follows. */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger(DeliveryService.name);
  private readonly slots = new WebhookSlots({
    cap: MAX_IN_FLIGHT_PER_WEBHOOK,
    slowMs: SLOW_WEBHOOK_MS,
    slowForMs: SLOW_FOR_MS,
  });

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly cache: WebhookCache,
    private readonly deliveries: DeliveryRepository,
    private readonly sender: HttpSender,
    private readonly log: DeliveryLogWriter,
    private readonly amqp: AmqpClient,
    private readonly metrics: DispatcherMetrics,
  ) {}

  async attempt(message: DeliveryMessage, attempt: number, lane: Lane = 'normal'): Promise<AttemptOutcome> {
    const snapshot = message.snapshot ?? (await this.deliveries.findSnapshot(message.deliveryId));
    if (!snapshot) {
      this.logger.warn(`delivery ${message.deliveryId} no longer exists (webhook deleted); dropped`);
      return 'dropped';
    }
    const webhook = await this.cache.forDelivery(snapshot.webhookId);
    if (!webhook) return 'dropped'; // deleted since: nothing to deliver to, and its log is gone with it
    if (webhook.secrets.length === 0) throw new Error(`webhook ${webhook.id} has no valid signing secret`);

    const release = lane === 'slow' ? this.slots.track(webhook.id) : await this.slots.acquire(webhook.id);
    if (!release) {
      // Slow or saturated webhook: its delivery waits in the slow lane, out of the healthy webhooks' way.
      await this.amqp.publish(
        EXCHANGES.deliveries,
        ROUTING_KEYS.deliverSlow,
        Buffer.from(JSON.stringify({ ...message, snapshot })),
        { messageId: message.deliveryId, headers: { [ATTEMPT_HEADER]: attempt } },
      );
      this.metrics.scheduled.inc({ decision: 'slow_lane' });
      return 'moved-to-slow-lane';
    }

    this.metrics.inFlight.inc();
    const createdAt = new Date();
    let result;
    try {
      const headers = buildWebhookHeaders({
        webhookId: message.deliveryId,
        timestamp: createdAt,
        body: snapshot.body,
        secrets: webhook.secrets.map((s) => s.secret),
        contentType: snapshot.contentType as WebhookContentType,
      });
      result = await this.sender.send(
        webhook.url,
        { ...headers, 'user-agent': 'payments-webhooks/1.0' },
        snapshot.body,
        lane,
      );
    } finally {
      this.metrics.inFlight.dec();
      release();
    }

    const succeeded = result.status >= 200 && result.status < 300;
    this.metrics.deliveries.inc({
      outcome: succeeded ? 'success' : result.status === 0 ? 'no_response' : 'http_error',
    });
    this.metrics.latency.observe(result.durationMs / 1000);
    if (attempt === 1 && snapshot.occurredAt) {
      this.metrics.eventAge.observe((Date.now() - Date.parse(snapshot.occurredAt)) / 1000);
    }

    const step = nextStep({
      succeeded,
      attempt,
      retryOnError: webhook.retryOnError,
      manual: message.manual === true,
      delaysMs: this.config.retryDelaysMs,
    });
    let nextAttemptAt: Date | null = null;
    if (step.kind === 'retry') {
      nextAttemptAt = new Date(Date.now() + step.delayMs);
      await this.republish(message, step.attempt, retryQueueName(step.delayMs), snapshot);
      this.metrics.scheduled.inc({ decision: 'retry' });
    } else if (step.kind === 'give-up') {
      if (step.parked) {
        await this.park(message, attempt, snapshot);
        this.metrics.scheduled.inc({ decision: 'parked' });
      } else {
        this.metrics.scheduled.inc({ decision: 'failed' });
      }
    }

    await this.log.write({
      id: randomUUID(),
      deliveryId: message.deliveryId,
      webhookId: webhook.id,
      attempt,
      eventType: snapshot.eventType,
      eventId: snapshot.eventId,
      request: {
        url: webhook.url,
        contentType: snapshot.contentType,
        version: snapshot.version,
        psp: snapshot.subject.psp ?? null,
        type: snapshot.subject.type ?? null,
        uuid: snapshot.subject.uuid,
      },
      status: result.status,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
      createdAt,
      nextAttemptAt,
    });
    return 'attempted';
  }

  /** Sends the message to a delay queue; it dead-letters back to the delivery queue after the delay. */
  private async republish(message: DeliveryMessage, attempt: number, queue: string, snapshot: DeliverySnapshot) {
    await this.amqp.publish('', queue, Buffer.from(JSON.stringify({ ...message, snapshot })), {
      messageId: message.deliveryId,
      headers: { [ATTEMPT_HEADER]: attempt },
    });
  }

  private async park(message: DeliveryMessage, attempt: number, snapshot: DeliverySnapshot) {
    await this.amqp.publish(
      EXCHANGES.deadLetter,
      ROUTING_KEYS.parkedDeliveries,
      Buffer.from(JSON.stringify({ ...message, snapshot })),
      {
        messageId: message.deliveryId,
        headers: { [ATTEMPT_HEADER]: attempt },
      },
    );
  }
}
