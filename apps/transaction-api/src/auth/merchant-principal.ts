import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who a merchant API request acts for: the merchant owning the API key, and the key's integration. */
export interface MerchantPrincipal {
  merchantId: string;
  integrationId: string;
}

type AuthenticatedRequest = FastifyRequest & { merchantPrincipal?: MerchantPrincipal };

export function setPrincipal(request: FastifyRequest, principal: MerchantPrincipal): void {
  (request as AuthenticatedRequest).merchantPrincipal = principal;
}

/** Injects the {@link MerchantPrincipal} set by the ApiKeyGuard. */
export const CurrentMerchant = createParamDecorator((_: unknown, context: ExecutionContext): MerchantPrincipal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().merchantPrincipal;
  if (!principal) throw new Error('CurrentMerchant used on a route without ApiKeyGuard');
  return principal;
});
