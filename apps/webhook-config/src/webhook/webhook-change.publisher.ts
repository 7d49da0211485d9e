import { Injectable, Logger } from '@nestjs/common';
import { AmqpClient, publishWebhookChanged } from '#messaging';

/**
 * Tells every dispatcher that a webhook changed (created, updated, deleted, secret rotated), so their caches
 * refresh at once. The change is already committed: a broker outage is logged, not reported to the merchant
 * (the dispatchers' caches also expire on their own).
 */
@Injectable()
export class WebhookChangePublisher {
  private readonly logger = new Logger('WebhookChanges');

  constructor(private readonly amqp: AmqpClient) {}

  async changed(merchantId: string, webhookId: string): Promise<void> {
    try {
      await publishWebhookChanged(this.amqp, { merchantId, webhookId });
    } catch (error) {
      this.logger.warn({
        msg: `could not announce the change of webhook ${webhookId}: ${(error as Error).message}`,
        webhookId,
      });
    }
  }
}
