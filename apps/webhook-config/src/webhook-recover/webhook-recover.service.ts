import { Injectable } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import { RECOVER_CANCEL_COMMAND, RECOVER_COMMAND } from '#messaging';
import { parseInstant } from '#platform';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';
import { retentionText } from '../webhook-delivery/webhook-delivery.service.js';
import { WebhookChangePublisher } from '../webhook/webhook-change.publisher.js';
import { WebhookLookup } from '../webhook/webhook.lookup.js';
import type { RecoverRef } from './recover-ref.entity.js';
import { RecoverCommandPublisher } from './recover-command.publisher.js';
import { WebhookRecoverException, WebhookRecoverExceptionCode } from './webhook-recover.exception.js';
import { WebhookRecoverRepository } from './webhook-recover.repository.js';

/** A recover's progress as the backend API shows it (CONTRACT §5). */
export interface RecoverView {
  id: string;
  state: RecoverRef['state'];
  since: string;
  total: number;
  sent: number;
  startedAt: string;
  finishedAt: string | null;
  cancelReason: RecoverRef['cancelReason'];
}

const toView = (recover: RecoverRef): RecoverView => ({
  id: recover.id,
  state: recover.state,
  since: recover.since.toISOString(),
  total: recover.total,
  sent: recover.sent,
  startedAt: recover.startedAt.toISOString(),
  finishedAt: recover.finishedAt?.toISOString() ?? null,
  cancelReason: recover.cancelReason,
});

/** How long a request waits for the dispatcher to take its start or cancel up (then it answers all the same). */
const TAKEN_UP_MS = 5_000;
const POLL_MS = 50;

/**
 * Recover (CONTRACT §5): every event since a time whose latest outcome for the webhook is failed or skipped, sent
 * again. The dispatcher owns recovers and works on them as jobs; this side checks the request, counts (for the
 * answer), asks by command, and reads the progress through the dispatcher's view. One recover per webhook at a time:
 * requests for one webhook take turns (an advisory lock), and one that finds a recover running is refused, naming it.
 */
@Injectable()
export class WebhookRecoverService {
  constructor(
    private readonly lookup: WebhookLookup,
    private readonly recovers: WebhookRecoverRepository,
    private readonly commands: RecoverCommandPublisher,
    private readonly changes: WebhookChangePublisher,
    private readonly config: WebhookConfigConfig,
  ) {}

  async start(merchantId: string, webhookId: string, since: string): Promise<{ id: string | null; count: number }> {
    const webhook = await this.lookup.require(merchantId, webhookId);
    const from = recoverSince(since, this.config.logRetentionMs);
    if (!webhook.enabled) {
      throw new WebhookRecoverException(
        'This webhook is disabled. Enable it first; then recover what it missed.',
        WebhookRecoverExceptionCode.WEBHOOK_DISABLED,
      );
    }
    return this.recovers.locked(webhookId, async (manager) => {
      const latest = await this.recovers.latest(webhookId, manager);
      if (latest?.state === 'running') throw running(latest);
      const count = await this.recovers.countRecoverable(manager, webhookId, from);
      if (count === 0) return { id: null, count };
      const id = randomUUIDv7();
      await this.commands.send({
        type: RECOVER_COMMAND,
        recoverId: id,
        webhookId,
        merchantId,
        since: from.toISOString(),
        total: count,
      });
      // Held until the dispatcher has it (a second request then finds it running), or it is busy: then the
      // dispatcher starts it later, and refuses a second one while it runs.
      await until(async () => (await this.recovers.find(id, manager)) !== null);
      return { id, count };
    });
  }

  async progress(merchantId: string, webhookId: string): Promise<RecoverView> {
    await this.lookup.require(merchantId, webhookId);
    const latest = await this.recovers.latest(webhookId);
    if (!latest) throw noRecover();
    return toView(latest);
  }

  /** Cancels the running recover (nothing more of it is sent); answers the latest's progress. */
  async cancel(merchantId: string, webhookId: string): Promise<RecoverView> {
    await this.lookup.require(merchantId, webhookId);
    return this.recovers.locked(webhookId, async (manager) => {
      const latest = await this.recovers.latest(webhookId, manager);
      if (!latest) throw noRecover();
      if (latest.state !== 'running') return toView(latest);
      await this.commands.send({ type: RECOVER_CANCEL_COMMAND, recoverId: latest.id, webhookId, merchantId });
      let now: RecoverRef | null = latest;
      await until(async () => (now = await this.recovers.find(latest.id, manager))?.state !== 'running');
      // Every dispatcher reads the recover's state again now, not within the second it keeps it: nothing more of it
      // is sent from here on.
      await this.changes.changed(merchantId, webhookId);
      return toView(now ?? latest);
    });
  }
}

const running = (recover: RecoverRef) =>
  new WebhookRecoverException(
    `A recover of this webhook is running (${recover.id}, since ${recover.since.toISOString()}: ${recover.sent} of ` +
      `${recover.total} sent). Wait for it to finish, or cancel it, before you start another.`,
    WebhookRecoverExceptionCode.RECOVER_RUNNING,
  );

const noRecover = () =>
  new WebhookRecoverException('This webhook has not been recovered yet.', WebhookRecoverExceptionCode.NO_RECOVER);

/** Polls `done` until it holds or TAKEN_UP_MS passed. */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + TAKEN_UP_MS;
  while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
}

const SINCE_FORMAT = 'must be a date and time with a time zone (ISO 8601, e.g. 2026-11-20T08:00:00Z)';

/** A recover's `since`, checked: a time in the past, no further back than the log is kept. */
function recoverSince(since: string, retentionMs: number): Date {
  // With a zone only (CONTRACT §3): a zone-less time would mean whatever the server's zone makes of it.
  const time = parseInstant(since) ?? new Date(Number.NaN);
  const refuse = (message: string) =>
    new WebhookRecoverException(`since ${message}.`, WebhookRecoverExceptionCode.INVALID_SINCE, [
      { field: 'since', message },
    ]);
  if (Number.isNaN(time.getTime())) throw refuse(SINCE_FORMAT);
  if (time.getTime() > Date.now()) throw refuse('must not be in the future');
  if (time.getTime() < Date.now() - retentionMs) {
    throw refuse(`must be within the last ${retentionText(retentionMs)}: older deliveries are no longer kept`);
  }
  return time;
}
