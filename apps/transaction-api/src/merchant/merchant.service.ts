import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '#domain';
import type { IntegrationResponse, MerchantResponse } from './merchant.dto.js';
import { MerchantException, MerchantExceptionCode } from './merchant.exception.js';
import { MerchantRepository } from './merchant.repository.js';

@Injectable()
export class MerchantService {
  constructor(private readonly merchants: MerchantRepository) {}

  async createMerchant(name: string): Promise<MerchantResponse> {
    const id = randomUUID();
    // TypeORM writes generated columns back into the object it inserts: hand it a copy.
    await this.merchants.insertMerchant({ id, name });
    return { id, name };
  }

  /** Creates an integration with a new API key; the key is returned once and only its hash is stored. */
  async createIntegration(merchantId: string, name: string): Promise<IntegrationResponse> {
    if (!(await this.merchants.merchantExists(merchantId))) {
      throw new MerchantException('No merchant has this id.', MerchantExceptionCode.NOT_FOUND);
    }
    const apiKey = generateApiKey();
    const id = randomUUID();
    await this.merchants.insertIntegration({
      id,
      merchantId,
      name,
      apiKeyHash: hashApiKey(apiKey),
      apiKeyPrefix: apiKeyDisplayPrefix(apiKey),
    });
    return { id, name, apiKey };
  }
}
