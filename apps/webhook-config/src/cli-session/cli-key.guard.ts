import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { addLogFields } from '#platform';
import { CliKeyLookup, type CliPrincipal } from './cli-key.lookup.js';

const PRINCIPAL = Symbol('cliPrincipal');

/** The command line's routes: the merchant's API key (CliKeyLookup), never the backend's session cookie. */
@Injectable()
export class CliKeyGuard implements CanActivate {
  constructor(private readonly keys: CliKeyLookup) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { [PRINCIPAL]?: CliPrincipal }>();
    const principal = await this.keys.require(CliKeyLookup.presented(request.headers));
    addLogFields({ merchantId: principal.merchantId });
    request[PRINCIPAL] = principal;
    return true;
  }
}

/** The principal CliKeyGuard found. */
export const CurrentCliPrincipal = createParamDecorator(
  (_: unknown, context: ExecutionContext): CliPrincipal =>
    context.switchToHttp().getRequest<{ [PRINCIPAL]: CliPrincipal }>()[PRINCIPAL],
);
