import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isTransientDatabaseError } from '#persistence';
import { DomainException } from '../errors/domain.exception.js';
import { PROBLEM_CONTENT_TYPE, Problem, ProblemException, problemFor } from './problem.js';
import type { ProblemTables } from './problem.table.js';

/** How long a client should wait before repeating a request answered 503 (the `Retry-After` header). */
export const RETRY_AFTER_SECONDS = 1;

/** The answer to a request body of any type but JSON. */
export const JSON_ONLY_DETAIL = 'Send the request body as JSON (Content-Type: application/json).';

/**
 * Turns every error into an RFC 9457 problem, a feature's DomainException through its table in `problems` (the app's,
 * given to createHttpApp). A database that is away or did not answer within the statement timeout is a 503 with
 * Retry-After (a write it interrupted committed in full or not at all). Unknown errors are logged and answered with a
 * bare 500.
 */
export function toProblem(error: unknown, logger: Logger, problems: ProblemTables, request?: FastifyRequest): Problem {
  if (error instanceof ProblemException) return error.problem;
  // A code without an answer in the app's tables falls through to the 500 below, logged (each app's problem spec
  // makes sure none is left out).
  const domainProblem = error instanceof DomainException ? problems.problemOf(error) : undefined;
  if (domainProblem) return domainProblem;
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
  const where = `${request?.method ?? '?'} ${request?.routeOptions?.url ?? '?'}`;
  if (isTransientDatabaseError(error)) {
    // One line, not a stack: during an outage every request says the same.
    logger.warn(`Database unavailable on ${where}: ${(error as Error).message}`);
    return problemFor(503, 'The database is unavailable or did not answer in time. Try again in a moment.');
  }
  logger.error(`Unhandled error on ${where}: ${(error as Error)?.stack ?? String(error)}`);
  return problemFor(500, 'An unexpected error occurred. It has been logged.');
}

/** Fastify's messages quote what was sent (the path, the content type): the answer names the rule instead. */
function describeFastifyError(error: { code?: string }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return 'The request body does not match its Content-Length.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return JSON_ONLY_DETAIL;
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return 'A path segment of the request URL is too long.';
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_INVALID_URL':
      return 'The request URL is malformed.';
    default:
      return 'The request cannot be processed as sent.';
  }
}

export function sendProblem(reply: FastifyReply, problem: Problem): void {
  if (problem.status === 503) void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
  void reply.status(problem.status).header('content-type', PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  constructor(private readonly problems: ProblemTables) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const problem = toProblem(exception, this.logger, this.problems, ctx.getRequest<FastifyRequest>());
    sendProblem(ctx.getResponse<FastifyReply>(), problem);
  }
}
