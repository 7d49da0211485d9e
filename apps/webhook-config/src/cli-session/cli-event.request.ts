import { createHash } from 'node:crypto';
import {
  buildWebhookHeaders,
  deliverySubjectOf,
  encodePayload,
  renderWebhookPayload,
  WEBHOOK_USER_AGENT,
  type PayloadObject,
  type WebhookContentType,
  type WebhookVersion,
} from '#domain';
import { platformEvents, readEventSubject } from '#messaging';

/** What a session receives its events as (its settings and its secret, decrypted). */
export interface CliSessionSigning {
  id: string;
  version: WebhookVersion;
  contentType: WebhookContentType;
  secret: string;
}

/** An `event` frame (docs/cli-protocol.md): the request to POST to the local URL, and what to log and print. */
export interface CliEventFrame {
  type: 'event';
  /** The `webhook-id`: one per event and session. */
  id: string;
  eventId: string;
  eventType: string;
  subjectId: string;
  referenceId: string | null;
  request: { headers: Record<string, string>; body: string };
}

/**
 * The `webhook-id` of an event for a session: a UUID made of both (SHA-256), so the same event comes with the same id
 * however often it is sent to the session, and another session's differs.
 */
export function cliWebhookId(sessionId: string, eventId: string): string {
  const hex = createHash('sha256').update(`${sessionId}:${eventId}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A platform event as a webhook of the session's version and content type receives it: the body rendered and encoded
 * by libs/domain like the dispatcher's, the headers of a delivery attempt now (signed with the session's secret) and
 * the user agent. An event that is not a valid platform event: why not (never its content).
 */
export function cliEventFrame(
  content: Buffer,
  session: CliSessionSigning,
  now = new Date(),
): { ok: true; frame: CliEventFrame } | { ok: false; reason: string } {
  const event = platformEvents.read(content);
  if (!event.ok) return event;
  const subject = readEventSubject(event.value);
  if (!subject.ok) return subject;
  const tree = renderWebhookPayload(session.version, subject.value) as PayloadObject;
  const body = encodePayload(session.contentType, tree).body;
  const id = cliWebhookId(session.id, event.value.id);
  const headers = buildWebhookHeaders({
    webhookId: id,
    timestamp: now,
    body,
    secrets: [session.secret],
    contentType: session.contentType,
  });
  const { uuid, referenceId } = deliverySubjectOf(subject.value);
  return {
    ok: true,
    frame: {
      type: 'event',
      id,
      eventId: event.value.id,
      eventType: event.value.type,
      subjectId: uuid,
      referenceId: referenceId ?? null,
      request: { headers: { ...headers, 'user-agent': WEBHOOK_USER_AGENT }, body },
    },
  };
}
