/*
 * The columns of the dispatcher's log (delivery.webhook_log) whose shape both apps know: the dispatcher writes them,
 * webhook-config reads them through its view (WebhookLogEntity).
 */

/** The `request` of a webhook log entry: what was sent where, and which subject it was about. */
export interface WebhookLogRequest {
  url: string;
  contentType: string;
  version: string;
  psp: string | null;
  type: string | null;
  uuid: string;
  /** The subject's referenceId (the shop's order number), null when it has none or was logged before it was kept. */
  referenceId?: string | null;
}

/** What became of one delivery at one log entry (CONTRACT §5). */
export const LOG_OUTCOMES = ['delivered', 'failed', 'skipped', 'superseded'] as const;
export type LogOutcome = (typeof LOG_OUTCOMES)[number];
