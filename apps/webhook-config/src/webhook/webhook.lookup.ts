import { Injectable } from '@nestjs/common';
import type { WebhookEntity } from '#persistence';
import { webhookNotFound } from './webhook.exception.js';
import { WebhookRepository } from './webhook.repository.js';

/** Finds a webhook of the signed-in merchant; anything else (unknown, another merchant's) is NOT_FOUND. */
@Injectable()
export class WebhookLookup {
  constructor(private readonly webhooks: WebhookRepository) {}

  async require(merchantId: string, id: string): Promise<WebhookEntity> {
    const webhook = await this.webhooks.findOwned(merchantId, id);
    if (!webhook) throw webhookNotFound();
    return webhook;
  }
}
