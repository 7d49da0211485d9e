import { Injectable } from '@nestjs/common';
import { hashApiKey, looksLikeApiKey } from '#domain';
import { CliSessionException, CliSessionExceptionCode } from './cli-session.exception.js';
import { CliSessionRepository } from './cli-session.repository.js';

/** Whose API key a command line presented: the key's integration and its merchant. */
export interface CliPrincipal {
  merchantId: string;
  integrationId: string;
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * The command line's credentials: the merchant's API key of one integration, as `Authorization: Bearer <key>` or
 * `X-API-KEY` (like the read API). Known keys are cached for a minute (a reconnecting command line asks again and
 * again); a problem never repeats the key.
 */
@Injectable()
export class CliKeyLookup {
  private readonly cache = new Map<string, { principal: CliPrincipal; until: number }>();

  constructor(private readonly sessions: CliSessionRepository) {}

  /** The key presented in these request headers, if any. */
  static presented(headers: Record<string, string | string[] | undefined>): string | undefined {
    const authorization = headers['authorization'];
    if (typeof authorization === 'string') {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      return match ? match[1] : authorization;
    }
    const apiKey = headers['x-api-key'];
    return typeof apiKey === 'string' ? apiKey.trim() : undefined;
  }

  /** @throws {CliSessionException} naming the key's problem: missing, malformed, or no integration's. */
  async require(apiKey: string | undefined): Promise<CliPrincipal> {
    if (!apiKey) {
      throw new CliSessionException(
        'No API key: send your integration’s API key as `Authorization: Bearer <apiKey>` (payments … --api-key).',
        CliSessionExceptionCode.API_KEY_MISSING,
      );
    }
    if (!looksLikeApiKey(apiKey)) {
      throw new CliSessionException(
        'This is not an API key: an API key is `pk_` followed by 43 letters, digits, `-` or `_` (the key shown once ' +
          'when the integration was created).',
        CliSessionExceptionCode.API_KEY_MALFORMED,
      );
    }
    const cached = this.cache.get(apiKey);
    if (cached && cached.until > Date.now()) return cached.principal;
    const principal = await this.sessions.integrationForKey(hashApiKey(apiKey));
    if (!principal) {
      throw new CliSessionException(
        'This API key is not known: no integration has it (check that it is complete and of this platform).',
        CliSessionExceptionCode.API_KEY_UNKNOWN,
      );
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(apiKey, { principal, until: Date.now() + CACHE_TTL_MS });
    return principal;
  }
}
