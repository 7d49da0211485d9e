import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AmqpClient, QUEUES, ROUTING_KEYS, webhookHealthReports } from '#messaging';
import { NoticeService } from './notice.service.js';

/** Reports in flight per process: each is a short transaction and perhaps an e-mail. */
const REPORT_PREFETCH = 4;

/**
 * Consumes `config.webhook-health`, the dispatcher's reports on failing webhooks. A report is acked once it is acted
 * on; one that fails (database or SMTP away) is given back and tried again; one that is not a health report of a
 * known version is parked in `config.webhook-health.parked`, with its reason. The backend starts without waiting for
 * the broker: reports wait in their queue until the consumer is set up (the client sets it up again after every
 * reconnect).
 */
@Injectable()
export class WebhookHealthConsumer implements OnApplicationBootstrap {
  constructor(
    private readonly amqp: AmqpClient,
    private readonly notices: NoticeService,
  ) {}

  private readonly logger = new Logger(WebhookHealthConsumer.name);

  onApplicationBootstrap(): void {
    void this.consume().catch((error: Error) =>
      this.logger.error(`could not consume ${QUEUES.webhookHealth}: ${error.message}`),
    );
  }

  private async consume(): Promise<void> {
    await this.amqp.consume(
      QUEUES.webhookHealth,
      async (message) => {
        const report = webhookHealthReports.read(message.content);
        if (!report.ok) await this.amqp.park(message, ROUTING_KEYS.parkedWebhookHealth, report.reason);
        else await this.notices.handle(report.value);
        return 'ack';
      },
      { prefetch: REPORT_PREFETCH },
    );
  }
}
