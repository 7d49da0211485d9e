import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ProblemException } from '#platform';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The platform (internal) API: `Authorization: Bearer $PLATFORM_TOKEN`. Both sides are hashed first so the
 * constant-time comparison also hides the token's length.
 */
@Injectable()
export class PlatformTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(config: WebhookConfigConfig) {
    this.expected = digest(config.platformToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const header = http.getRequest<FastifyRequest>().headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]), this.expected)) {
      void http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer');
      throw new ProblemException(401, 'A valid platform token is required: Authorization: Bearer <PLATFORM_TOKEN>.');
    }
    return true;
  }
}
