import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AmqpClient, EXCHANGES, ROUTING_KEYS, webhookChanges } from '#messaging';
import { DeliveryRepository } from '../delivery/delivery.repository.js';
import { RecoverStates } from '../recover/recover-state.cache.js';
import { WebhookCache } from '../webhook/webhook.cache.js';

/**
 * Each dispatcher process listens on its own exclusive queue and forgets changed webhooks at once. A message it cannot
 * read may be a change it must not miss: it forgets every webhook, as after a reconnect, and parks the message in
 * `dispatcher.config.parked`.
 *
 * The message does not say what changed. When the webhook is gone (deleted in webhook-config), its deliveries and
 * their log, which are the dispatcher's, are deleted too: in the background, so that the cache keeps up with changes
 * even while the database is away. Every process does it (each gets every message); after the first, it deletes
 * nothing.
 *
 * It starts listening in onModuleInit, after the cache has loaded (WebhookModule's init comes first: it is imported)
 * and before any other consumer starts (onApplicationBootstrap), so no message is handled with a change unheard.
 */
@Injectable()
export class WebhookChangesConsumer implements OnModuleInit {
  private readonly logger = new Logger(WebhookChangesConsumer.name);

  constructor(
    private readonly amqp: AmqpClient,
    private readonly cache: WebhookCache,
    private readonly deliveries: DeliveryRepository,
    private readonly recovers: RecoverStates,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.amqp.consume(
      '',
      async (message) => {
        const change = webhookChanges.read(message.content);
        if (change.ok) {
          this.cache.invalidate(change.value);
          // A recover of it may have been cancelled (webhook-config announces that too): read its state again.
          this.recovers.forget();
          this.forgetIfDeleted(change.value.webhookId);
          return 'ack';
        }
        this.cache.clear();
        // The cache is cleared: unparked, the message is only lost, never requeued to fail again.
        await this.amqp
          .park(message, ROUTING_KEYS.parkedConfig, change.reason)
          .catch((error: Error) => this.logger.warn(`could not park a webhooks.config message: ${error.message}`));
        return 'ack';
      },
      { prefetch: 100, exclusiveBindTo: { exchange: EXCHANGES.config }, onReady: () => this.cache.clear() },
    );
  }

  private forgetIfDeleted(webhookId: string): void {
    this.deliveries.deleteOfDeletedWebhook(webhookId).catch((error: Error) =>
      this.logger.warn({
        msg: `could not delete the deliveries of deleted webhook ${webhookId}: ${error.message}`,
        webhookId,
      }),
    );
  }
}
