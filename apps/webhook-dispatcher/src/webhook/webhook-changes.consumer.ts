import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AmqpClient, EXCHANGES, type WebhookChangedMessage } from '#messaging';
import { WebhookCache } from './webhook.cache.js';

/** Each dispatcher process listens on its own exclusive queue and forgets changed webhooks at once. */
@Injectable()
export class WebhookChangesConsumer implements OnApplicationBootstrap {
  private readonly logger = new Logger(WebhookChangesConsumer.name);

  constructor(
    private readonly amqp: AmqpClient,
    private readonly cache: WebhookCache,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.amqp.consume(
      '',
      async (message) => {
        try {
          const change = JSON.parse(message.content.toString()) as WebhookChangedMessage;
          if (change.type === 'webhook.changed') this.cache.invalidate(change);
        } catch {
          this.logger.warn('ignored an unreadable webhooks.config message');
        }
        return 'ack';
      },
      { prefetch: 100, exclusiveBindTo: { exchange: EXCHANGES.config }, onReady: () => this.cache.clear() },
    );
  }
}
