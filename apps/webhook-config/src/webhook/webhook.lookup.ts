import { Injectable } from '@nestjs/common';
import { webhookNotFound } from './webhook.exception.js';
import { WebhookRepository } from './webhook.repository.js';
import type { WebhookEntity } from './webhook.entity.js';

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
