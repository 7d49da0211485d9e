import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addLogFields, ProblemException } from '#platform';
import { IntegrationKeyLookup } from '../merchant/integration-key.lookup.js';
import { presentedApiKey } from './credentials.js';
import { setPrincipal } from './merchant-principal.js';

/** Merchant read API: `Authorization: Bearer <apiKey>` or `X-API-KEY: <apiKey>`; 401 problem otherwise. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: IntegrationKeyLookup) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const apiKey = presentedApiKey(request);
    const principal = apiKey ? await this.keys.find(apiKey) : undefined;
    if (!principal) {
      // RFC 9110 §11.6.1: a 401 says which scheme it wants (X-API-KEY is the alternative the detail names).
      void http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer');
      throw new ProblemException(
        401,
        'Send a valid API key as `Authorization: Bearer <apiKey>` or `X-API-KEY: <apiKey>`.',
      );
    }
    setPrincipal(request, principal);
    addLogFields({ merchantId: principal.merchantId });
    return true;
  }
}
