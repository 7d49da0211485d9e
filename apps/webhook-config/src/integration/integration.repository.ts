import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { IntegrationRef } from './integration-ref.entity.js';

export interface IntegrationView {
  id: string;
  name: string;
  createdAt: string;
}

/** A merchant's integrations: id and name only, never the key hash or prefix. */
@Injectable()
export class IntegrationRepository {
  constructor(@InjectRepository(IntegrationRef) private readonly integrations: Repository<IntegrationRef>) {}

  async listForMerchant(merchantId: string): Promise<IntegrationView[]> {
    const rows = await this.integrations.find({
      select: { id: true, name: true, createdAt: true },
      where: { merchantId },
      order: { name: 'ASC', id: 'ASC' },
    });
    return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.createdAt.toISOString() }));
  }

  belongsToMerchant(merchantId: string, integrationId: string): Promise<boolean> {
    return this.integrations.existsBy({ merchantId, id: integrationId });
  }
}
