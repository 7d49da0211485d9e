import { Injectable } from '@nestjs/common';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  GUARD_HEADER,
  guardQueueName,
  PARKED_REASON_HEADER,
  RATE_AT_HEADER,
  rateQueueName,
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
  /** The delivery queue, at once: a first attempt, a test, a resend. */
  | { to: 'deliveries' }
  /** A delay queue: back to the delivery queue after `delayMs` (a repeat). */
  | { to: 'retry'; delayMs: number }
  /** The recover lane: a recover's deliveries (its job paces them). */
  | { to: 'recover' }
  /** The webhook's own shard of the slow lane. */
  | { to: 'slow-lane'; webhookId: string }
  /** The guard queue: a stand-in, back to the delivery queue after the guard delay (`x-guard`). */
  | { to: 'guard' }
  /** A rate queue: waits `delayMs` for the start `at` (Unix ms) it booked (`x-rate-at`), then the delivery queue. */
  | { to: 'rate'; delayMs: number; at: number }
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

  publish(message: DeliveryMessage, attempt: number, destination: DeliveryDestination): Promise<void> {
    const headers: Record<string, unknown> = { [ATTEMPT_HEADER]: attempt };
    const traceparent = activeTraceparent(); // the trace the message came in (its fan-out), when tracing is on
    if (traceparent !== null) headers[TRACEPARENT_HEADER] = traceparent;
    let exchange = ''; // the default exchange: straight to the queue named by the routing key
    let routingKey: string;
    switch (destination.to) {
      case 'deliveries':
        exchange = EXCHANGES.deliveries;
        routingKey = ROUTING_KEYS.deliver;
        break;
      case 'retry':
        routingKey = retryQueueName(destination.delayMs);
        break;
      case 'recover':
        exchange = EXCHANGES.deliveries;
        routingKey = ROUTING_KEYS.deliverRecovered;
        break;
      case 'slow-lane':
        exchange = EXCHANGES.deliveries;
        routingKey = slowLaneRoutingKey(slowLaneShard(destination.webhookId));
        break;
      case 'guard':
        routingKey = guardQueueName(this.config.guardDelayMs);
        headers[GUARD_HEADER] = 1;
        break;
      case 'rate':
        routingKey = rateQueueName(destination.delayMs);
        headers[RATE_AT_HEADER] = destination.at;
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
