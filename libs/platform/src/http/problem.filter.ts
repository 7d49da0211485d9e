import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_CONTENT_TYPE, Problem, ProblemException, problemFor } from './problem.js';

/** Turns every error into an RFC 9457 problem. Unknown errors are logged and answered with a bare 500. */
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
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return problemFor(fastifyError.statusCode, describeFastifyError(fastifyError));
  }
  logger.error(
    `Unhandled error on ${request?.method ?? '?'} ${request?.routeOptions?.url ?? request?.url ?? '?'}: ${(error as Error)?.stack ?? String(error)}`,
  );
  return problemFor(500, 'An unexpected error occurred. It has been logged.');
}

function describeFastifyError(error: { code?: string; message?: string }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is not valid JSON.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type; send application/json.';
    default:
      return error.message?.replace(/^Body cannot be empty.*$/, 'The request body is empty.') ?? 'Bad request.';
  }
}

export function sendProblem(reply: FastifyReply, problem: Problem): void {
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
