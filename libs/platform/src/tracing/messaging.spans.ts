import { SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import {
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_OPERATION_NAME,
  ATTR_MESSAGING_OPERATION_TYPE,
  ATTR_MESSAGING_RABBITMQ_DESTINATION_ROUTING_KEY,
  ATTR_MESSAGING_SYSTEM,
  MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
  MESSAGING_OPERATION_TYPE_VALUE_SEND,
  MESSAGING_SYSTEM_VALUE_RABBITMQ,
} from '@opentelemetry/semantic-conventions/incubating';
import { failSpan, runInSpan, startSpan, tracingEnabled } from './tracing.js';

/** Where a RabbitMQ message goes or came from: its exchange, routing key and AMQP message id. */
export interface AmqpDestination {
  exchange: string;
  routingKey: string;
  messageId?: string;
}

/** What a consumed message tells (amqplib's ConsumeMessage has it). */
export interface ConsumedAmqpMessage {
  fields: { exchange: string; routingKey: string };
  properties: { headers?: Record<string, unknown>; messageId?: string };
}

/**
 * The messaging semantic conventions for RabbitMQ: `messaging.destination.name` is the exchange (the empty string for
 * the default exchange), the routing key beside it when there is one. Operation `send` on the producer's side,
 * `process` on the consumer's.
 */
function messagingAttributes(destination: AmqpDestination, operation: 'publish' | 'process'): Attributes {
  const attributes: Attributes = {
    [ATTR_MESSAGING_SYSTEM]: MESSAGING_SYSTEM_VALUE_RABBITMQ,
    [ATTR_MESSAGING_DESTINATION_NAME]: destination.exchange,
    [ATTR_MESSAGING_OPERATION_TYPE]:
      operation === 'publish' ? MESSAGING_OPERATION_TYPE_VALUE_SEND : MESSAGING_OPERATION_TYPE_VALUE_PROCESS,
    [ATTR_MESSAGING_OPERATION_NAME]: operation,
  };
  if (destination.routingKey !== '')
    attributes[ATTR_MESSAGING_RABBITMQ_DESTINATION_ROUTING_KEY] = destination.routingKey;
  if (destination.messageId !== undefined) attributes[ATTR_MESSAGING_MESSAGE_ID] = destination.messageId;
  return attributes;
}

/** `{operation} {destination}`, the conventions' span name (the exchange, or `(default)` for the default one). */
const spanName = (operation: 'publish' | 'process', exchange: string) => `${operation} ${exchange || '(default)'}`;

/**
 * Starts the PRODUCER span of one publish, `publish <exchange>`, the child of the `traceparent` in `parent` when valid
 * (else of the active span, else a new trace); the caller puts `traceparentOf(span)` in the message's headers and
 * ends the span when the broker confirmed it ({@link endPublishSpan}). Undefined with tracing off.
 */
export function startPublishSpan(destination: AmqpDestination, parent?: Record<string, unknown>): Span | undefined {
  if (!tracingEnabled()) return undefined;
  return startSpan(
    spanName('publish', destination.exchange),
    messagingAttributes(destination, 'publish'),
    parent,
    SpanKind.PRODUCER,
  );
}

/** Ends a publish span when `publishing` settles (failed, with `error.type`, if it rejects); returns `publishing`. */
export function endPublishSpan<T>(span: Span, publishing: Promise<T>): Promise<T> {
  publishing.then(
    () => span.end(),
    (error: unknown) => {
      failSpan(span, error, errorTypeOf(error));
      span.end();
    },
  );
  return publishing;
}

/**
 * Runs `work` (the handling of a consumed message) as its CONSUMER span, `process <exchange>`, the child of the
 * message's `traceparent` header (else a new trace), with `attributes` of the caller's beside the conventions'; the
 * span is active inside it and its trace id is in the log fields. With tracing off, just runs `work`: no span, no
 * attribute object.
 */
export async function inProcessSpan<T>(
  message: ConsumedAmqpMessage,
  attributes: () => Attributes,
  work: (span?: Span) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return work();
  const { exchange, routingKey } = message.fields;
  const span = startSpan(
    spanName('process', exchange),
    {
      ...messagingAttributes({ exchange, routingKey, messageId: message.properties.messageId }, 'process'),
      ...attributes(),
    },
    message.properties.headers,
    SpanKind.CONSUMER,
  );
  if (!span) return work();
  try {
    return await runInSpan(span, () => work(span));
  } catch (error) {
    failSpan(span, error, errorTypeOf(error));
    throw error;
  } finally {
    span.end();
  }
}

/** A low-cardinality class of an error for `error.type`: its code, else its name. */
function errorTypeOf(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown } | null | undefined;
  if (typeof e?.code === 'string' && e.code !== '') return e.code;
  if (typeof e?.name === 'string' && e.name !== '') return e.name;
  return '_OTHER';
}
