import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { WebhookHealthEntity } from './webhook-health.entity.js';

/** The health of webhooks, as the dispatcher counts their attempts (read through its view; one row per webhook). */
@Injectable()
export class WebhookHealthRepository {
  constructor(@InjectRepository(WebhookHealthEntity) private readonly health: Repository<WebhookHealthEntity>) {}

  /** By webhook id; a webhook without attempts has none. One query for a whole list. */
  async of(webhookIds: string[]): Promise<Map<string, WebhookHealthEntity>> {
    if (webhookIds.length === 0) return new Map();
    const rows = await this.health.findBy({ webhookId: In(webhookIds) });
    return new Map(rows.map((row) => [row.webhookId, row]));
  }
}
