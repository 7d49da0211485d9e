import { Injectable, Logger } from '@nestjs/common';
import type { WebhookHealthReport } from '#messaging';
import { WebhookChangePublisher } from '../webhook/webhook-change.publisher.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { NoticeMailer } from './notice.mailer.js';
import { NoticeRepository, type NoticeRow } from './notice.repository.js';

/** A notice as the backend API shows it. */
export interface NoticeView {
  id: string;
  kind: 'failing' | 'disabled';
  webhookId: string;
  webhookName: string;
  failingSince: string;
  createdAt: string;
}

const toNoticeView = (row: NoticeRow): NoticeView => ({
  id: row.id,
  kind: row.kind,
  webhookId: row.webhookId,
  webhookName: row.webhookName,
  failingSince: row.failingSince.toISOString(),
  createdAt: row.createdAt.toISOString(),
});

/**
 * Acts on the dispatcher's reports about failing webhooks (CONTRACT §5): one failing for an hour gets its merchant a
 * notice; one failing for WEBHOOK_DISABLE_AFTER is disabled (reason `failing`) and gets one too. A notice is in the
 * backend at once and, with SMTP_URL, e-mailed to the merchant's backend users — once per webhook, kind and episode,
 * however often the report arrives.
 */
@Injectable()
export class NoticeService {
  private readonly logger = new Logger(NoticeService.name);

  constructor(
    private readonly notices: NoticeRepository,
    private readonly webhooks: WebhookRepository,
    private readonly changes: WebhookChangePublisher,
    private readonly mailer: NoticeMailer,
  ) {}

  async recent(merchantId: string): Promise<NoticeView[]> {
    return (await this.notices.recent(merchantId)).map(toNoticeView);
  }

  /** Throws when the e-mail could not be sent: the report is then handled again later (and e-mails once). */
  async handle(report: WebhookHealthReport): Promise<void> {
    const failingSince = new Date(report.failingSince);
    if (report.type === 'webhook.failing-too-long') {
      const disabled = await this.webhooks.disableFailing(report.merchantId, report.webhookId);
      if (disabled) {
        this.logger.warn({
          msg: `webhook ${report.webhookId} disabled: all of its ${report.failures} attempts since ${report.failingSince} failed`,
          webhookId: report.webhookId,
          merchantId: report.merchantId,
        });
        await this.changes.changed(report.merchantId, report.webhookId);
      }
    }
    const kind = report.type === 'webhook.failing' ? 'failing' : 'disabled';
    const notice = await this.notices.record(kind, report.merchantId, report.webhookId, failingSince);
    if (!notice || notice.emailedAt || !this.mailer.enabled || !(await this.notices.claimEmail(notice.id))) return;
    try {
      await this.mailer.send({ to: await this.notices.recipients(report.merchantId), ...mailOf(notice) });
    } catch (error) {
      // Given back: the report is handled again later (the consumer gives it back), and e-mails then.
      await this.notices.releaseEmail(notice.id);
      throw error;
    }
  }
}

/** The e-mail of a notice: what happened, since when, and what to do. */
function mailOf(notice: NoticeRow): { subject: string; text: string } {
  const since = notice.failingSince.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  if (notice.kind === 'failing') {
    return {
      subject: `Webhook “${notice.webhookName}” is failing`,
      text:
        `Your server has not accepted the webhook “${notice.webhookName}” since ${since}: every attempt since then ` +
        'failed.\n\nThe delivery log in the merchant backend shows why for each attempt, and what to do. Webhooks that ' +
        'keep failing are repeated, and a webhook that keeps failing for days is disabled.\n',
    };
  }
  return {
    subject: `Webhook “${notice.webhookName}” was disabled`,
    text:
      `The webhook “${notice.webhookName}” was disabled because every attempt since ${since} failed. Nothing is sent ` +
      'to it now; each event is recorded in its delivery log as not sent.\n\nWhen your server is ready, enable the ' +
      'webhook again in the merchant backend and send what you missed from its log.\n',
  };
}
