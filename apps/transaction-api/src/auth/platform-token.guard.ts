import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '#platform';
import { TransactionApiConfig } from '../config/transaction-api.config.js';
import { bearerToken } from './credentials.js';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Platform (internal) API: `Authorization: Bearer $PLATFORM_TOKEN`. Both sides are hashed to equal length first,
 * then compared in constant time, so neither the token nor its length leaks through timing.
 */
@Injectable()
export class PlatformTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(config: TransactionApiConfig) {
    this.expected = digest(config.platformToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const token = bearerToken(context.switchToHttp().getRequest<FastifyRequest>());
    if (token && timingSafeEqual(digest(token), this.expected)) return true;
    throw new ProblemException(401, 'Send the platform token as `Authorization: Bearer <token>`.');
  }
}
