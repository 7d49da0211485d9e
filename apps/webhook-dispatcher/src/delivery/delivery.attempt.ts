import { Injectable, Logger } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { buildWebhookHeaders, WEBHOOK_USER_AGENT } from '#domain';
import type { Span } from '@opentelemetry/api';
import { activeTraceparent, failSpan, tracingEnabled, type LogFields } from '#platform';
import type { DeliveryMessage, DeliverySnapshot } from '#messaging';
import { logRequestOf } from './delivery-log.writer.js';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import type { SigningWebhook } from '../webhook/webhook.cache.js';
import { recordAttemptOutcome, startAttemptSpan } from './delivery-attempt.span.js';
import { nextStep, outcomeOf, retryAfterMs } from './delivery.decision.js';
import { DeliveryLogWriter } from './delivery-log.writer.js';
import { DeliveryPublisher } from './delivery.publisher.js';
import { DeliveryWaitRepository } from './delivery-wait.repository.js';
import { HttpSender } from './http.sender.js';
import { supersedingPosition } from './superseded.repository.js';

/** Which queue a delivery message came from (the slow lane has its own HTTP connection pool). */
export type Lane = 'normal' | 'slow' | 'recover';

/** One attempt as DeliveryAttempt makes it: the delivery, what it sends and to whom, and its caller's hooks. */
export interface AttemptContext {
  message: DeliveryMessage;
  /** The attempt's number (`x-attempt`). */
  attempt: number;
  snapshot: DeliverySnapshot;
  webhook: SigningWebhook;
  /** The lane its message came from: the slow lane POSTs through its own connection pool. */
  lane: Lane;
  /** Frees the webhook's slot; called once the POST has its outcome, whatever it is. */
  release: () => void;
  /** Called once the POST has its outcome (before the log write), whatever it is. */
  sent: () => void;
}

/**
 * Makes one attempt of a delivery: signs the stored body, POSTs it, queues what follows (a repeat in its delay
 * queue, or the parking) and logs it. What follows is queued before the log is written: a message whose attempt is
 * logged can then be dropped (see DeliveryService) without losing its repeat.
 */
@Injectable()
export class DeliveryAttempt {
  private readonly logger = new Logger(DeliveryAttempt.name);
  /** The line per attempt is debug detail: with LOG_LEVEL above debug its fields are not even built. */
  private readonly debugLines: boolean;

  constructor(
    private readonly config: WebhookDispatcherConfig,
    private readonly sender: HttpSender,
    private readonly log: DeliveryLogWriter,
    private readonly publisher: DeliveryPublisher,
    private readonly waits: DeliveryWaitRepository,
    private readonly metrics: DispatcherMetrics,
  ) {
    this.debugLines = config.base.logLevel === 'debug';
  }

  /**
   * Resolves once the attempt is logged. With tracing on the attempt is a CLIENT span, the child of the active trace
   * (the event's CONSUMER span); it is not made active, so repeats carry on that trace context.
   */
  async make(context: AttemptContext): Promise<'attempted'> {
    if (!tracingEnabled()) return this.attempt(context);
    const { message, attempt, webhook } = context;
    const span = startAttemptSpan({
      url: webhook.url,
      webhookId: webhook.id,
      deliveryId: message.deliveryId,
      attempt,
    });
    if (!span) return this.attempt(context);
    try {
      return await this.attempt(context, span);
    } catch (error) {
      failSpan(span, error, error instanceof Error ? error.name : '_OTHER');
      throw error;
    } finally {
      span.end();
    }
  }

  private async attempt(context: AttemptContext, span?: Span): Promise<'attempted'> {
    const { message, attempt, snapshot, webhook, lane, release, sent } = context;
    this.metrics.inFlight.inc();
    const createdAt = new Date();
    let result;
    try {
      const headers = buildWebhookHeaders({
        webhookId: message.deliveryId,
        timestamp: createdAt,
        body: snapshot.body,
        secrets: webhook.secrets.map((s) => s.secret),
        contentType: snapshot.contentType,
      });
      result = await this.sender.send(
        webhook.url,
        // The merchant's custom headers first: ours (signatures, content type, user agent) always win.
        { ...webhook.headers, ...headers, 'user-agent': WEBHOOK_USER_AGENT },
        snapshot.body,
        lane === 'slow' ? 'slow' : 'normal',
      );
    } finally {
      this.metrics.inFlight.dec();
      release();
      sent();
    }

    const outcome = outcomeOf(result.status);
    if (span) recordAttemptOutcome(span, result, outcome === 'success');
    this.metrics.deliveries.inc({ outcome });
    this.metrics.latency.observe(result.durationMs / 1000);
    if (attempt === 1 && snapshot.occurredAt) {
      // Checked as an instant when the message was read; still, nothing here may stop the log write below.
      const ageMs = Date.now() - Date.parse(snapshot.occurredAt);
      if (Number.isFinite(ageMs)) this.metrics.eventAge.observe(ageMs / 1000);
    }

    const step = nextStep({
      succeeded: outcome === 'success',
      attempt,
      retryOnError: webhook.retryOnError,
      manual: message.manual === true,
      delaysMs: this.config.retryDelaysMs,
      status: result.status,
      retryAfterMs: retryAfterMs(result.retryAfter, Date.now()),
    });
    let nextAttemptAt: Date | null = null;
    if (step.kind === 'retry') {
      nextAttemptAt = new Date(Date.now() + step.delayMs);
      if (step.retryAfter) {
        // Not the delay queue's time: the repeat waits in the schedule until then (DeliveryWaitPump).
        await this.waits.add({
          message: { ...message, snapshot },
          attempt: step.attempt,
          traceparent: activeTraceparent(),
          notBefore: nextAttemptAt.getTime(),
        });
      } else {
        await this.publisher.publish({ ...message, snapshot }, step.attempt, { to: 'retry', delayMs: step.delayMs });
      }
      this.metrics.scheduled.inc({ decision: 'retry' });
    } else if (step.kind === 'give-up') {
      if (step.parked) {
        await this.publisher.publish({ ...message, snapshot }, attempt, { to: 'parked', reason: 'repeats used up' });
        this.metrics.scheduled.inc({ decision: 'parked' });
      } else {
        this.metrics.scheduled.inc({ decision: 'failed' });
      }
    }

    await this.log.write({
      id: randomUUIDv7(),
      deliveryId: message.deliveryId,
      webhookId: webhook.id,
      attempt,
      eventType: snapshot.eventType,
      eventId: snapshot.eventId,
      request: logRequestOf(webhook.url, snapshot),
      outcome: outcome === 'success' ? 'delivered' : 'failed',
      status: result.status,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
      createdAt,
      nextAttemptAt,
      manual: message.manual === true,
      recoverId: message.recoverId,
      position: supersedingPosition(snapshot),
    });
    if (this.debugLines) {
      this.logger.debug({
        msg: `attempt ${attempt} of delivery ${message.deliveryId}: ${result.status || 'no response'}`,
        ...logFieldsOf(message, snapshot, webhook),
        attempt,
        status: result.status,
        durationMs: result.durationMs,
      });
    }
    return 'attempted';
  }
}

/** What a log line about an attempt names as its fields. */
export const logFieldsOf = (
  message: DeliveryMessage,
  snapshot: DeliverySnapshot,
  webhook: SigningWebhook,
): LogFields => ({
  deliveryId: message.deliveryId,
  eventId: snapshot.eventId,
  webhookId: webhook.id,
  merchantId: webhook.merchantId,
});
