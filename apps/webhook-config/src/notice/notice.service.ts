import { Injectable, Logger } from '@nestjs/common';
import type { WebhookHealthReport } from '#messaging';
import { OperationalEventOutbox } from '../operational-event/operational-event.outbox.js';
import { OperationalEventRelay } from '../operational-event/operational-event.relay.js';
import { WebhookChangePublisher } from '../webhook/webhook-change.publisher.js';
import { NoticeEmailSender } from './notice-email.sender.js';
import { NoticeMailer } from './notice.mailer.js';
import { NoticeRepository, type NoticeReason, type NoticeRow } from './notice.repository.js';

/** A notice as the backend API shows it. */
export interface NoticeView {
  id: string;
  kind: 'failing' | 'disabled';
  /** For `disabled`: why — `failing` for WEBHOOK_DISABLE_AFTER, or `gone` (the URL answered 410); else null. */
  reason: NoticeReason | null;
  webhookId: string;
  webhookName: string;
  failingSince: string;
  createdAt: string;
}

const toNoticeView = (row: NoticeRow): NoticeView => ({
  id: row.id,
  kind: row.kind,
  reason: row.reason,
  webhookId: row.webhookId,
  webhookName: row.webhookName,
  failingSince: row.failingSince.toISOString(),
  createdAt: row.createdAt.toISOString(),
});

/**
 * Acts on the dispatcher's reports about failing webhooks (CONTRACT §5): one failing for an hour gets its merchant a
 * notice; one failing for WEBHOOK_DISABLE_AFTER is disabled (reason `failing`), one whose URL answered 410 at once
 * (reason `gone`), and gets one too. Only while the webhook is still in the episode the report tells of: not once its
 * merchant enabled it after the episode began, nor once an attempt has succeeded since. A notice is in the backend at
 * once and, with SMTP_URL, queued as one e-mail per backend user of the merchant in the same transaction (the outbox,
 * sent by NoticeEmailSender) — once per webhook, kind and episode, however often the report arrives. Handling needs
 * the database only: SMTP being down never fails a report.
 */
@Injectable()
export class NoticeService {
  private readonly logger = new Logger(NoticeService.name);

  constructor(
    private readonly notices: NoticeRepository,
    private readonly changes: WebhookChangePublisher,
    private readonly mailer: NoticeMailer,
    private readonly sender: NoticeEmailSender,
    private readonly events: OperationalEventOutbox,
    private readonly relay: OperationalEventRelay,
  ) {}

  async recent(merchantId: string): Promise<NoticeView[]> {
    return (await this.notices.recent(merchantId)).map(toNoticeView);
  }

  /** Throws when the database fails: the report is then handled again (and acts once). `failingSince` is a valid time. */
  async handle(report: WebhookHealthReport): Promise<void> {
    const episode = {
      merchantId: report.merchantId,
      webhookId: report.webhookId,
      failingSince: new Date(report.failingSince),
    };
    const email = this.mailer.enabled;
    const reason: NoticeReason | null =
      report.type === 'webhook.gone' ? 'gone' : report.type === 'webhook.failing-too-long' ? 'failing' : null;
    // The notice's operational event (`webhook.failing`, `webhook.disabled` with the reason) is written with it: once
    // per episode, like the notice.
    const { disabled, recorded } = await this.notices.transaction(async (manager) => {
      if (!reason) {
        const recorded = await this.notices.record(manager, 'failing', null, episode, email);
        if (recorded) await this.events.record(manager, 'webhook.failing', episode, episode);
        return { disabled: false, recorded };
      }
      const disabled = await this.notices.disable(manager, episode, reason);
      const recorded = disabled && (await this.notices.record(manager, 'disabled', reason, episode, email));
      if (disabled) await this.events.record(manager, 'webhook.disabled', episode, episode);
      return { disabled, recorded };
    });
    if (disabled) {
      this.logger.warn({
        msg:
          reason === 'gone'
            ? `webhook ${report.webhookId} disabled: its URL answered 410 Gone at ${report.failingSince}`
            : `webhook ${report.webhookId} disabled: all of its ${report.failures} attempts since ${report.failingSince} failed`,
        webhookId: report.webhookId,
        merchantId: report.merchantId,
      });
      await this.changes.changed(report.merchantId, report.webhookId);
    }
    // After the change was announced: the dispatchers know of the disable before they fan its event out.
    if (recorded || disabled) this.relay.nudge();
    if (recorded && email) this.sender.nudge();
  }
}
