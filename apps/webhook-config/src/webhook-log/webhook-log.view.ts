import type { LogOutcome, WebhookLogRequest } from '#persistence';
import type { LoggedAttempt } from './webhook-log.repository.js';

/**
 * A webhook log entry as the backend API returns it, exactly these keys (docs/webhook-config.md, Delivery log; the
 * UI explains its status: ui/js/status-explanation.js).
 */
export interface WebhookLogView {
  id: string;
  attempt: number;
  eventType: string;
  eventId: string;
  request: Required<WebhookLogRequest>;
  outcome: LogOutcome;
  /** The HTTP status, 0 when no response came; null when no request was made (skipped, superseded). */
  status: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
}

export function toWebhookLogView(log: LoggedAttempt): WebhookLogView {
  return {
    id: log.id,
    // The attempt's place among its delivery's attempts, not the dispatcher's counter (see LoggedAttempt).
    attempt: log.ordinal,
    eventType: log.eventType,
    eventId: log.eventId,
    request: {
      url: log.request.url,
      contentType: log.request.contentType,
      version: log.request.version,
      psp: log.request.psp ?? null,
      type: log.request.type ?? null,
      uuid: log.request.uuid,
      referenceId: log.request.referenceId ?? null,
    },
    outcome: log.outcome,
    status: log.status,
    durationMs: log.durationMs,
    error: log.error,
    responseExcerpt: log.responseExcerpt,
    createdAt: log.createdAt.toISOString(),
    nextAttemptAt: log.nextAttemptAt?.toISOString() ?? null,
  };
}
