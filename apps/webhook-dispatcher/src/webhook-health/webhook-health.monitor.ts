import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AmqpClient, publishWebhookHealthReport, type WebhookHealthReport } from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { WebhookCache } from '../webhook/webhook.cache.js';

/** A webhook failing this long is reported (CONTRACT §5: its merchant is notified). */
export const FAILING_NOTICE_AFTER_MS = 3_600_000;
/** At least this many failed attempts before a webhook is disabled, however long it has failed. */
export const DISABLE_AFTER_FAILURES = 10;
/** Reports this process remembers having sent or sending (then it forgets them all: a repeat is harmless). */
const REMEMBERED_REPORTS = 10_000;

/** A webhook's health as the log writer's statement left it (delivery.webhook_health). */
export interface HealthRow {
  webhook_id: string;
  failing_since: Date | null;
  failures_in_a_row: number;
  failing_reported_for: Date | null;
  disable_reported_for: Date | null;
  /** The latest attempt answered 410 Gone, and the one reported (`webhook.gone`). */
  gone_at: Date | null;
  gone_reported_for: Date | null;
}

/** What the monitor needs to know of the webhook itself (WebhookCache). */
export interface MonitoredWebhook {
  merchantId: string;
  enabled: boolean;
  enabledAt: Date | null;
}

/** A report due: its type, and the time it reports (`failingSince`: the episode's start, or the 410 answer). */
export interface DueReport {
  type: WebhookHealthReport['type'];
  at: Date;
}

const sameTime = (a: Date | null, b: Date | null) => a !== null && b !== null && a.getTime() === b.getTime();
const later = (a: Date, b: Date | null) => (b !== null && b.getTime() > a.getTime() ? b : a);

/**
 * Tells webhook-config, once per episode of failures, that a webhook has failed for an hour, and that it has failed
 * for WEBHOOK_DISABLE_AFTER with at least DISABLE_AFTER_FAILURES attempts (to be disabled); and, once per answer, that
 * an attempt was answered 410 Gone (to be disabled at once). An episode starts at the first failed attempt after the
 * last success (failing_since) — or, when its merchant enabled the webhook again after that, at the enabling: a
 * webhook enabled by hand and still failing is disabled again WEBHOOK_DISABLE_AFTER later. Nothing is reported for a
 * disabled webhook. Looks at the health each batch of log entries leaves (DeliveryLogWriter), so at the pace of the
 * webhook's attempts. The report is published (confirmed) before it is marked as sent: a process that dies in between,
 * or a second process seeing the same episode, sends it again, and webhook-config acts once per episode. Within a
 * process a report is sent once: batches logged side by side each see the episode unreported until the first marks it.
 */
@Injectable()
export class WebhookHealthMonitor {
  private readonly logger = new Logger(WebhookHealthMonitor.name);
  /** `webhook type` → the episode (ms) this process has sent, or is sending, that report for. */
  private readonly sent = new Map<string, number>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: WebhookDispatcherConfig,
    private readonly amqp: AmqpClient,
    private readonly cache: WebhookCache,
  ) {}

  /** Whether a report may be due for the row, before the webhook is looked up. */
  private mayBeDue(row: HealthRow, now: number): boolean {
    if (!row.failing_since) return false;
    if (row.gone_at && !sameTime(row.gone_reported_for, row.gone_at)) return true;
    return now - row.failing_since.getTime() >= Math.min(FAILING_NOTICE_AFTER_MS, this.config.disableAfterMs);
  }

  /** The reports due for this webhook's health at `now`. */
  due(row: HealthRow, webhook: MonitoredWebhook, now: number): DueReport[] {
    if (!row.failing_since || !webhook.enabled) return [];
    const due: DueReport[] = [];
    const episode = later(row.failing_since, webhook.enabledAt);
    const failingFor = now - episode.getTime();
    if (failingFor >= FAILING_NOTICE_AFTER_MS && !sameTime(row.failing_reported_for, episode)) {
      due.push({ type: 'webhook.failing', at: episode });
    }
    if (
      failingFor >= this.config.disableAfterMs &&
      row.failures_in_a_row >= DISABLE_AFTER_FAILURES &&
      !sameTime(row.disable_reported_for, episode)
    ) {
      due.push({ type: 'webhook.failing-too-long', at: episode });
    }
    // A 410 of this episode (after the last success, and after the latest enabling), not yet reported.
    if (row.gone_at && row.gone_at.getTime() >= episode.getTime() && !sameTime(row.gone_reported_for, row.gone_at)) {
      due.push({ type: 'webhook.gone', at: row.gone_at });
    }
    return due;
  }

  /**
   * Sends the reports due. A failure is logged and left for the webhook's next attempt, which looks again: the log
   * write it follows is done and must not be repeated for it.
   */
  async observe(rows: HealthRow[], now: number = Date.now()): Promise<void> {
    for (const row of rows) {
      if (!this.mayBeDue(row, now)) continue;
      let webhook: MonitoredWebhook | undefined;
      try {
        webhook = await this.cache.forDelivery(row.webhook_id);
      } catch (error) {
        this.logger.warn({
          msg: `could not look at the health of webhook ${row.webhook_id} (again at its next attempt): ${(error as Error).message}`,
          webhookId: row.webhook_id,
        });
        continue;
      }
      if (!webhook) continue; // deleted meanwhile
      for (const report of this.due(row, webhook, now)) await this.report(row, webhook, report);
    }
  }

  private async report(row: HealthRow, webhook: MonitoredWebhook, { type, at }: DueReport): Promise<void> {
    const key = `${row.webhook_id} ${type}`;
    if (this.sent.get(key) === at.getTime()) return;
    if (this.sent.size >= REMEMBERED_REPORTS) this.sent.clear();
    this.sent.set(key, at.getTime());
    try {
      await publishWebhookHealthReport(this.amqp, {
        type,
        webhookId: row.webhook_id,
        merchantId: webhook.merchantId,
        failingSince: at.toISOString(),
        failures: Math.max(1, row.failures_in_a_row),
      });
      const column = REPORTED_COLUMN[type];
      await this.db.query(`UPDATE webhook_health SET ${column} = $2 WHERE webhook_id = $1`, [row.webhook_id, at]);
      this.logger.warn({
        msg:
          type === 'webhook.gone'
            ? `webhook ${row.webhook_id} answered 410 Gone at ${at.toISOString()}: reported ${type}`
            : `webhook ${row.webhook_id} failing since ${at.toISOString()} (${row.failures_in_a_row} failed attempts): reported ${type}`,
        webhookId: row.webhook_id,
        merchantId: webhook.merchantId,
      });
    } catch (error) {
      this.sent.delete(key);
      this.logger.warn({
        msg: `could not report ${type} for webhook ${row.webhook_id} (tried again at its next attempt): ${(error as Error).message}`,
        webhookId: row.webhook_id,
      });
    }
  }
}

/** Where each report is marked as sent for its episode. */
const REPORTED_COLUMN: Record<WebhookHealthReport['type'], string> = {
  'webhook.failing': 'failing_reported_for',
  'webhook.failing-too-long': 'disable_reported_for',
  'webhook.gone': 'gone_reported_for',
};
