import { Injectable } from '@nestjs/common';
import type { MerchantPrincipal } from '../auth/merchant-principal.js';
import { hashApiKey, looksLikeApiKey } from '#domain';
import { MerchantRepository } from './merchant.repository.js';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Finds the integration of an API key by its SHA-256 hash (a unique index). Found keys are cached for a minute
 * (keyed by hash, never by the key itself) so that the read API costs one query per request; integrations are
 * never deleted or re-keyed through the API, so a cached entry cannot become wrong. Unknown keys are not cached.
 * Looked up on the primary even with a read replica (DATABASE_READ_URL): a key the platform created a moment ago
 * must work at once, and the cache leaves the primary about one lookup per key and process a minute.
 */
@Injectable()
export class IntegrationKeyLookup {
  private readonly cache = new Map<string, { principal: MerchantPrincipal; expires: number }>();

  constructor(private readonly merchants: MerchantRepository) {}

  /** The key's integration if it is in the cache (no query). */
  cached(apiKey: string): MerchantPrincipal | undefined {
    if (!looksLikeApiKey(apiKey)) return undefined;
    const cached = this.cache.get(hashApiKey(apiKey).toString('base64'));
    return cached && cached.expires > Date.now() ? cached.principal : undefined;
  }

  async find(apiKey: string): Promise<MerchantPrincipal | undefined> {
    if (!looksLikeApiKey(apiKey)) return undefined;
    const hash = hashApiKey(apiKey);
    const cacheKey = hash.toString('base64');
    const now = Date.now();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expires > now) return cached.principal;
    const integration = await this.merchants.findIntegrationByKeyHash(hash);
    if (!integration) return undefined;
    const principal = { merchantId: integration.merchantId, integrationId: integration.id };
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(cacheKey, { principal, expires: now + CACHE_TTL_MS });
    return principal;
  }
}
