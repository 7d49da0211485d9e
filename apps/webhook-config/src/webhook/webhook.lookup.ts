import { Injectable } from '@nestjs/common';
import type { WebhookEntity } from '#persistence';
import { ProblemException } from '#platform';
import { WebhookRepository } from './webhook.repository.js';

/** Finds a webhook of the signed-in merchant; anything else (unknown, another merchant's) is 404. */
@Injectable()
export class WebhookLookup {
  constructor(private readonly webhooks: WebhookRepository) {}

  async require(merchantId: string, id: string): Promise<WebhookEntity> {
    const webhook = await this.webhooks.findOwned(merchantId, id);
    if (!webhook) throw new ProblemException(404, 'There is no webhook with this id.');
    return webhook;
  }
}
