import { Injectable } from '@nestjs/common';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';
import { SESSION_POLICY } from './session.policy.js';

/**
 * The session cookie: HttpOnly (scripts cannot read it), SameSite=Strict (never sent by another site's page),
 * Path=/, Secure in production and whenever the browser came over HTTPS. No Max-Age: it ends with the
 * browser session, and the server ends it earlier (see SESSION_POLICY).
 */
@Injectable()
export class SessionCookie {
  constructor(private readonly config: WebhookConfigConfig) {}

  read(request: FastifyRequest): string | undefined {
    return request.cookies?.[SESSION_POLICY.cookieName];
  }

  set(request: FastifyRequest, reply: FastifyReply, token: string): void {
    void reply.setCookie(SESSION_POLICY.cookieName, token, this.options(request));
  }

  clear(request: FastifyRequest, reply: FastifyReply): void {
    void reply.clearCookie(SESSION_POLICY.cookieName, this.options(request));
  }

  private options(request: FastifyRequest): CookieSerializeOptions {
    return {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
      secure: this.config.alwaysSecureCookies || request.protocol === 'https',
    };
  }
}
