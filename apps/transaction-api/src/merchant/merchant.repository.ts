import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IntegrationEntity, MerchantEntity } from '#persistence';
import type { Repository } from 'typeorm';

/** Merchants and integrations (tables owned by libs/persistence). */
@Injectable()
export class MerchantRepository {
  constructor(
    @InjectRepository(MerchantEntity) private readonly merchants: Repository<MerchantEntity>,
    @InjectRepository(IntegrationEntity) private readonly integrations: Repository<IntegrationEntity>,
  ) {}

  async insertMerchant(merchant: Pick<MerchantEntity, 'id' | 'name'>): Promise<void> {
    await this.merchants.insert(merchant);
  }

  async merchantExists(id: string): Promise<boolean> {
    return this.merchants.exists({ where: { id } });
  }

  async insertIntegration(
    integration: Pick<IntegrationEntity, 'id' | 'merchantId' | 'name' | 'apiKeyHash' | 'apiKeyPrefix'>,
  ): Promise<void> {
    await this.integrations.insert(integration);
  }

  async findIntegrationByKeyHash(apiKeyHash: Buffer): Promise<Pick<IntegrationEntity, 'id' | 'merchantId'> | null> {
    return this.integrations.findOne({ select: { id: true, merchantId: true }, where: { apiKeyHash } });
  }

  /** The merchant an integration belongs to, or null when there is no such integration. */
  async integrationMerchant(integrationId: string): Promise<string | null> {
    const found = await this.integrations.findOne({ select: { merchantId: true }, where: { id: integrationId } });
    return found?.merchantId ?? null;
  }
}
