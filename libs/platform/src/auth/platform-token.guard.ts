import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ProblemException } from '../http/problem.js';

/** Provided by each app that serves the platform (internal) API: its configured PLATFORM_TOKEN. */
export abstract class PlatformTokenSource {
  abstract readonly platformToken: string;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * The platform (internal) API: `Authorization: Bearer $PLATFORM_TOKEN`. Both sides are hashed first so the
 * constant-time comparison also hides the token's length. The token never appears in a message.
 */
@Injectable()
export class PlatformTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(source: PlatformTokenSource) {
    this.expected = digest(source.platformToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const header = http.getRequest<FastifyRequest>().headers.authorization ?? '';
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]), this.expected)) {
      void http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer');
      throw new ProblemException(401, 'A valid platform token is required: Authorization: Bearer <PLATFORM_TOKEN>.');
    }
    return true;
  }
}
