import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { addLogFields, ProblemException } from '#platform';
import { SessionCookie } from './session.cookie.js';
import { SessionService } from './session.service.js';
import { isValidCsrfToken } from './session.tokens.js';

/** Methods that change nothing: they need no CSRF token. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every /api route except sign-in: a live session cookie is required (401 otherwise), and every mutating
 * request must carry the session's `X-CSRF-Token` (403 otherwise).
 */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly sessions: SessionService,
    private readonly cookie: SessionCookie,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const session = await this.sessions.authenticate(this.cookie.read(request));
    if (!session) throw new ProblemException(401, 'You are not signed in, or your session has ended. Sign in again.');
    addLogFields({ merchantId: session.merchantId });
    if (!SAFE_METHODS.has(request.method)) {
      const submitted = request.headers['x-csrf-token'];
      if (!isValidCsrfToken(session.token, typeof submitted === 'string' ? submitted : undefined)) {
        throw new ProblemException(403, 'The X-CSRF-Token header is missing or does not match this session.');
      }
    }
    request.backendSession = session;
    return true;
  }
}
