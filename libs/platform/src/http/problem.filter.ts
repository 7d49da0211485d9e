import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTransientDatabaseError } from '#persistence';
import { PROBLEM_CONTENT_TYPE, Problem, ProblemException, problemFor } from './problem.js';

/** How long a client should wait before repeating a request answered 503 (the `Retry-After` header). */
export const RETRY_AFTER_SECONDS = 1;

/**
 * Turns every error into an RFC 9457 problem. A database that is away or did not answer within the statement timeout
 * is a 503 with Retry-After (a write it interrupted committed in full or not at all). Unknown errors are logged and
 * answered with a bare 500.
 */
export function toProblem(error: unknown, logger: Logger, request?: FastifyRequest): Problem {
  if (error instanceof ProblemException) return error.problem;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    const message =
      typeof response === 'string'
        ? response
        : Array.isArray((response as { message?: unknown }).message)
          ? ((response as { message: string[] }).message.join('; ') as string)
          : String((response as { message?: unknown }).message ?? error.message);
    return problemFor(status, message);
  }
  // Fastify's own 4xx first: a client that aborts mid-body is an ECONNRESET too, and no database matter.
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return problemFor(fastifyError.statusCode, describeFastifyError(fastifyError));
  }
  const where = `${request?.method ?? '?'} ${request?.routeOptions?.url ?? request?.url ?? '?'}`;
  if (isTransientDatabaseError(error)) {
    // One line, not a stack: during an outage every request says the same.
    logger.warn(`Database unavailable on ${where}: ${(error as Error).message}`);
    return problemFor(503, 'The database is unavailable or did not answer in time. Try again in a moment.');
  }
  logger.error(`Unhandled error on ${where}: ${(error as Error)?.stack ?? String(error)}`);
  return problemFor(500, 'An unexpected error occurred. It has been logged.');
}

function describeFastifyError(error: { code?: string; message?: string }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type; send application/json.';
    default:
      return error.message ?? 'Bad request.';
  }
}

export function sendProblem(reply: FastifyReply, problem: Problem): void {
  if (problem.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  void reply.status(problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    sendProblem(ctx.getResponse<FastifyReply>(), toProblem(exception, this.logger, ctx.getRequest<FastifyRequest>()));
  }
}
