import { Injectable } from '@nestjs/common';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  GUARD_HEADER,
  guardQueueName,
  PARKED_REASON_HEADER,
  RATE_AT_HEADER,
  ROUTING_KEYS,
  retryQueueName,
  slowLaneRoutingKey,
  slowLaneShard,
  TRACEPARENT_HEADER,
  type DeliveryMessage,
} from '#messaging';
import { activeTraceparent } from '#platform';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';

/** Where a delivery message goes. */
export type DeliveryDestination =
  /**
   * The delivery queue, at once: a first attempt, a test, a resend; or one the schedule releases, with the start
   * booked for it in its webhook's rate limit (`x-rate-at`, Unix ms).
   */
  | { to: 'deliveries'; rateAt?: number }
  /** A delay queue: back to the delivery queue after `delayMs` (a repeat). */
  | { to: 'retry'; delayMs: number }
  /** The recover lane: a recover's deliveries (its job paces them); `guard`: made only if not logged yet (`x-guard`). */
  | { to: 'recover'; guard?: boolean }
  /** The webhook's own shard of the slow lane, with the start it booked, if any: it never books again. */
  | { to: 'slow-lane'; webhookId: string; rateAt?: number }
  /** The guard queue: a stand-in, back to the delivery queue after the guard delay (`x-guard`). */
  | { to: 'guard' }
  /** `dispatcher.deliveries.parked`, with its reason in `x-parked-reason`. */
  | { to: 'parked'; reason: string };

/**
 * The one place the dispatcher publishes a delivery message (body as given, `x-attempt` = `attempt`, the trace it
 * belongs to in `traceparent`), wherever it goes. Resolves once the broker has confirmed it: the caller acks the message it came from only after that.
 */
@Injectable()
export class DeliveryPublisher {
  constructor(
    private readonly amqp: AmqpClient,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  publish(
    message: DeliveryMessage,
    attempt: number,
    destination: DeliveryDestination,
    /** The trace it belongs to, when not the active one (a delivery released from the schedule). */
    trace?: { traceparent: string | null },
  ): Promise<void> {
    const headers: Record<string, unknown> = { [ATTEMPT_HEADER]: attempt };
    // The trace the message came in (its fan-out), when tracing is on.
    const traceparent = trace ? trace.traceparent : activeTraceparent();
    if (traceparent !== null) headers[TRACEPARENT_HEADER] = traceparent;
    let exchange = ''; // the default exchange: straight to the queue named by the routing key
    let routingKey: string;
    switch (destination.to) {
      case 'deliveries':
        exchange = EXCHANGES.deliveries;
        routingKey = ROUTING_KEYS.deliver;
        if (destination.rateAt !== undefined) headers[RATE_AT_HEADER] = Math.round(destination.rateAt);
        break;
      case 'retry':
        routingKey = retryQueueName(destination.delayMs);
        break;
      case 'recover':
        exchange = EXCHANGES.deliveries;
        routingKey = ROUTING_KEYS.deliverRecovered;
        if (destination.guard === true) headers[GUARD_HEADER] = 1;
        break;
      case 'slow-lane':
        exchange = EXCHANGES.deliveries;
        routingKey = slowLaneRoutingKey(slowLaneShard(destination.webhookId));
        if (destination.rateAt !== undefined) headers[RATE_AT_HEADER] = Math.round(destination.rateAt);
        break;
      case 'guard':
        routingKey = guardQueueName(this.config.guardDelayMs);
        headers[GUARD_HEADER] = 1;
        break;
      case 'parked':
        exchange = EXCHANGES.deadLetter;
        routingKey = ROUTING_KEYS.parkedDeliveries;
        headers[PARKED_REASON_HEADER] = destination.reason;
        break;
    }
    return this.amqp.publish(exchange, routingKey, Buffer.from(JSON.stringify(message)), {
      messageId: message.deliveryId,
      headers,
    });
  }
}
