import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ProblemException } from '#platform';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../auth/api-key.js';
import type { IntegrationResponse, MerchantResponse } from './merchant.dto.js';
import { MerchantRepository } from './merchant.repository.js';

@Injectable()
export class MerchantService {
  constructor(private readonly merchants: MerchantRepository) {}

  async createMerchant(name: string): Promise<MerchantResponse> {
    const merchant = { id: randomUUID(), name };
    await this.merchants.insertMerchant(merchant);
    return merchant;
  }

  /** Creates an integration with a new API key; the key is returned once and only its hash is stored. */
  async createIntegration(merchantId: string, name: string): Promise<IntegrationResponse> {
    if (!(await this.merchants.merchantExists(merchantId))) {
      throw new ProblemException(404, 'No merchant has this id.');
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
