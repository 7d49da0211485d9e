import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is signed in on this request: set by SessionGuard. Every /api query is scoped by `merchantId`. */
export interface SessionContext {
  sessionId: string;
  userId: string;
  merchantId: string;
  email: string;
  /** The raw cookie token (to derive the CSRF token); never logged or stored. */
  token: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    backendSession?: SessionContext;
  }
}

/** The SessionContext of a request that passed SessionGuard. */
export const CurrentSession = createParamDecorator((_: unknown, context: ExecutionContext): SessionContext => {
  const session = context.switchToHttp().getRequest<FastifyRequest>().backendSession;
  if (!session) throw new Error('CurrentSession used on a route without SessionGuard');
  return session;
});
