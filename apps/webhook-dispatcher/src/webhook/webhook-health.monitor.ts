import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AmqpClient, publishWebhookHealthReport, type WebhookHealthReport } from '#messaging';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { WebhookCache } from './webhook.cache.js';

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
}

const sameTime = (a: Date | null, b: Date | null) => a !== null && b !== null && a.getTime() === b.getTime();

/**
 * Tells webhook-config, once per episode of failures (failing_since), that a webhook has failed for an hour, and
 * that it has failed for WEBHOOK_DISABLE_AFTER with at least DISABLE_AFTER_FAILURES attempts (to be disabled). Looks
 * at the health each batch of log entries leaves (DeliveryLogWriter), so at the pace of the webhook's attempts. The
 * report is published (confirmed) before it is marked as sent: a process that dies in between, or a second process
 * seeing the same episode, sends it again, and webhook-config acts once per episode. Within a process a report is
 * sent once: batches logged side by side each see the episode unreported until the first marks it.
 */
@Injectable()
export class WebhookHealthMonitor {
  private readonly logger = new Logger(WebhookHealthMonitor.name);
  /** `webhook type` → the episode (failing_since, ms) this process has sent, or is sending, that report for. */
  private readonly sent = new Map<string, number>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly config: WebhookDispatcherConfig,
    private readonly amqp: AmqpClient,
    private readonly cache: WebhookCache,
  ) {}

  /** The reports due for these webhooks, at `now`. */
  due(rows: HealthRow[], now: number): Array<{ row: HealthRow; type: WebhookHealthReport['type'] }> {
    const due: Array<{ row: HealthRow; type: WebhookHealthReport['type'] }> = [];
    for (const row of rows) {
      if (!row.failing_since) continue;
      const failingFor = now - row.failing_since.getTime();
      if (failingFor >= FAILING_NOTICE_AFTER_MS && !sameTime(row.failing_reported_for, row.failing_since)) {
        due.push({ row, type: 'webhook.failing' });
      }
      if (
        failingFor >= this.config.disableAfterMs &&
        row.failures_in_a_row >= DISABLE_AFTER_FAILURES &&
        !sameTime(row.disable_reported_for, row.failing_since)
      ) {
        due.push({ row, type: 'webhook.failing-too-long' });
      }
    }
    return due;
  }

  /**
   * Sends the reports due. A failure is logged and left for the webhook's next attempt, which looks again: the log
   * write it follows is done and must not be repeated for it.
   */
  async observe(rows: HealthRow[], now: number = Date.now()): Promise<void> {
    for (const { row, type } of this.due(rows, now)) {
      const key = `${row.webhook_id} ${type}`;
      if (this.sent.get(key) === row.failing_since!.getTime()) continue;
      if (this.sent.size >= REMEMBERED_REPORTS) this.sent.clear();
      this.sent.set(key, row.failing_since!.getTime());
      try {
        const webhook = await this.cache.forDelivery(row.webhook_id);
        if (!webhook) continue; // deleted meanwhile
        const failingSince = row.failing_since!;
        await publishWebhookHealthReport(this.amqp, {
          type,
          webhookId: row.webhook_id,
          merchantId: webhook.merchantId,
          failingSince: failingSince.toISOString(),
          failures: row.failures_in_a_row,
        });
        const column = type === 'webhook.failing' ? 'failing_reported_for' : 'disable_reported_for';
        await this.db.query(`UPDATE webhook_health SET ${column} = $2 WHERE webhook_id = $1`, [
          row.webhook_id,
          failingSince,
        ]);
        this.logger.warn({
          msg: `webhook ${row.webhook_id} failing since ${failingSince.toISOString()} (${row.failures_in_a_row} failed attempts): reported ${type}`,
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
}
