import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { AmqpClient, QUEUES, ROUTING_KEYS, webhookHealthReports } from '#messaging';
import { NoticeService } from './notice.service.js';

/** Reports in flight per process: each is a short transaction. */
const REPORT_PREFETCH = 4;
/** A report whose handling failed is tried again after 250 ms, doubling up to this. */
const RETRY_AT_MOST_MS = 15_000;
/**
 * How long a report is held and tried again in this process before it is given back to its queue (which counts a
 * delivery against the queue's limit): far less than RabbitMQ's consumer timeout (30 min by default), so the broker
 * never takes it back itself, and with the limit of 20 deliveries a report outlives about 3 hours of database outage.
 */
const HOLD_AT_MOST_MS = 10 * 60_000;

/** The wait before try `tries + 1` of a report whose `tries` tries failed. */
export function reportRetryMs(tries: number): number {
  return Math.min(RETRY_AT_MOST_MS, 250 * 2 ** Math.min(16, Math.max(0, tries - 1)));
}

/**
 * Consumes `config.webhook-health`, the dispatcher's reports on failing webhooks. A report is acked once it is acted
 * on. One that fails (the database away) is held and tried again in this process with backoff (reportRetryMs) — not
 * given back at once, which would use up the quorum queue's delivery limit within seconds and park a report that only
 * needed the database back — for up to HOLD_AT_MOST_MS, then given back (or at once when the app stops). SMTP never
 * fails a report: e-mails go through the outbox. One that is not a health report of a known version, or whose time is
 * not a time, is parked in `config.webhook-health.parked`, with its reason. The backend starts without waiting for
 * the broker: reports wait in their queue until the consumer is set up (the client sets it up again after every
 * reconnect).
 */
@Injectable()
export class WebhookHealthConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhookHealthConsumer.name);
  private readonly stopping = new AbortController();

  constructor(
    private readonly amqp: AmqpClient,
    private readonly notices: NoticeService,
  ) {}

  onApplicationBootstrap(): void {
    void this.consume().catch((error: Error) =>
      this.logger.error(`could not consume ${QUEUES.webhookHealth}: ${error.message}`),
    );
  }

  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  private async consume(): Promise<void> {
    await this.amqp.consume(
      QUEUES.webhookHealth,
      async (message) => {
        const report = webhookHealthReports.read(message.content);
        if (!report.ok) await this.amqp.park(message, ROUTING_KEYS.parkedWebhookHealth, report.reason);
        else if (Number.isNaN(Date.parse(report.value.failingSince)))
          await this.amqp.park(message, ROUTING_KEYS.parkedWebhookHealth, 'failingSince is not a date-time');
        else await this.handle(() => this.notices.handle(report.value), report.value.webhookId);
        return 'ack';
      },
      { prefetch: REPORT_PREFETCH },
    );
  }

  /** Tries `work` until it succeeds, waiting more after each failure; throws once held too long or stopping. */
  private async handle(work: () => Promise<void>, webhookId: string): Promise<void> {
    const since = Date.now();
    for (let tries = 1; ; tries++) {
      try {
        await work();
        if (tries > 1) this.logger.log({ msg: `report on webhook ${webhookId} handled at try ${tries}`, webhookId });
        return;
      } catch (error) {
        const waitMs = reportRetryMs(tries);
        if (this.stopping.signal.aborted || Date.now() + waitMs - since > HOLD_AT_MOST_MS) throw error;
        this.logger.warn({
          msg: `could not handle a report on webhook ${webhookId} (try ${tries}; again in ${waitMs} ms): ${(error as Error).message}`,
          webhookId,
        });
        await this.sleep(waitMs);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      this.stopping.signal.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
