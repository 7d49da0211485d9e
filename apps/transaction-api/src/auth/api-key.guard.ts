import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addLogFields, ProblemException, problemType } from '#platform';
import { IntegrationKeyLookup } from '../merchant/integration-key.lookup.js';
import { presentedApiKey } from './credentials.js';
import { setPrincipal } from './merchant-principal.js';
import { RateLimiter } from './rate-limit.service.js';

/**
 * Merchant read API: `Authorization: Bearer <apiKey>` or `X-API-KEY: <apiKey>`; 401 problem otherwise. Then the rate
 * limit: `API_RATE_LIMIT` requests per second per key, and as many wrong keys per second per client address (an
 * address over it is answered 429 before its key is even looked up, unless the key is a known one in the cache).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: IntegrationKeyLookup,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const apiKey = presentedApiKey(request);
    let principal = apiKey ? this.keys.cached(apiKey) : undefined;
    if (!principal) {
      if (!this.limiter.mayTry(request.ip)) throw rateLimited(reply, 'Too many requests with a wrong API key.');
      principal = apiKey ? await this.keys.find(apiKey) : undefined;
    }
    if (!principal) {
      if (!this.limiter.countWrongKey(request.ip)) throw rateLimited(reply, 'Too many requests with a wrong API key.');
      // RFC 9110 §11.6.1: a 401 says which scheme it wants (X-API-KEY is the alternative the detail names).
      void reply.header('www-authenticate', 'Bearer');
      throw new ProblemException(
        401,
        'Send a valid API key as `Authorization: Bearer <apiKey>` or `X-API-KEY: <apiKey>`.',
      );
    }
    addLogFields({ merchantId: principal.merchantId });
    if (!this.limiter.admitKey(principal.integrationId)) {
      throw rateLimited(reply, 'This API key sent more requests per second than its limit.');
    }
    setPrincipal(request, principal);
    return true;
  }
}

/** The window is one second: by then at least one request fits again. */
const RETRY_AFTER_SECONDS = '1';

function rateLimited(reply: FastifyReply, detail: string): ProblemException {
  void reply.header('retry-after', RETRY_AFTER_SECONDS);
  return new ProblemException(429, `${detail} Try again after the time in Retry-After (seconds).`, {
    type: problemType('rate-limited'),
  });
}
