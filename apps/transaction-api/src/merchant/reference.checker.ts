import { Injectable } from '@nestjs/common';
import { foreignIntegration, unknownMerchant } from './merchant.exception.js';
import { MerchantRepository } from './merchant.repository.js';

const CACHE_MAX = 10_000;

/**
 * Checks the merchantId / integrationId of a platform request: the merchant must exist and the integration, when
 * given, must belong to it. Failures are a MerchantException naming the field. Positive answers are cached: merchants
 * and integrations are never deleted or moved through the API (and the foreign keys still guard every insert).
 */
@Injectable()
export class ReferenceChecker {
  private readonly knownMerchants = new Set<string>();
  private readonly integrationOwners = new Map<string, string>();

  constructor(private readonly merchants: MerchantRepository) {}

  async check(merchantId: string, integrationId: string | null): Promise<void> {
    if (integrationId !== null) {
      const owner = await this.ownerOf(integrationId);
      if (owner === merchantId) return;
      if (!(await this.merchantExists(merchantId))) throw unknownMerchant();
      throw foreignIntegration();
    }
    if (!(await this.merchantExists(merchantId))) throw unknownMerchant();
  }

  private async merchantExists(merchantId: string): Promise<boolean> {
    if (this.knownMerchants.has(merchantId)) return true;
    const exists = await this.merchants.merchantExists(merchantId);
    if (exists) remember(this.knownMerchants, merchantId);
    return exists;
  }

  private async ownerOf(integrationId: string): Promise<string | null> {
    const cached = this.integrationOwners.get(integrationId);
    if (cached) return cached;
    const owner = await this.merchants.integrationMerchant(integrationId);
    if (owner) {
      if (this.integrationOwners.size >= CACHE_MAX) this.integrationOwners.clear();
      this.integrationOwners.set(integrationId, owner);
      remember(this.knownMerchants, owner);
    }
    return owner;
  }
}

function remember(set: Set<string>, value: string): void {
  if (set.size >= CACHE_MAX) set.clear();
  set.add(value);
}
