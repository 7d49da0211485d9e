import { DynamicModule, INestApplication, Logger, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest, RawServerDefault } from 'fastify';
import { createAppLogger, type LogFormat, type LogLevelName } from '../logging/app-logger.js';
import { NestLogger } from '../logging/nest-logger.js';
import { answerClientError } from './client-error.handler.js';
import { ConnectionDrain } from './connection-drain.js';
import { addInputGuard, parseJsonBody } from './input.guard.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { ProblemException, problemFor } from './problem.js';
import { JSON_ONLY_DETAIL, ProblemFilter, sendProblem, toProblem } from './problem.filter.js';
import { ProblemTables, type ProblemTable } from './problem.table.js';
import { AccessLogController, addRequestLogScope, logAccess, REQUEST_ID_HEADER, requestIdOf } from './request-log.js';
import { createValidationPipe } from './validation.pipe.js';
import { addTracing } from '../tracing/request-tracing.js';

export interface HttpAppOptions {
  /** The `app` field of every log line. */
  name: string;
  logLevel: LogLevelName;
  logFormat: LogFormat;
  /**
   * How the app's features' DomainExceptions are answered: one table each (problemTable), all of them, given here
   * and nowhere else. A feature exception without one would be a 500: each app's problem spec checks the list.
   */
  problems: readonly ProblemTable[];
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
  /** Serve OpenAPI: the UI at /{path}, the document at /{path}-json and /{path}-yaml. */
  openApi?: {
    /** Default `docs`. */
    path?: string;
    title: string;
    description: string;
    version: string;
    configure?: (builder: DocumentBuilder) => void;
    /**
     * Schemas whose objects carry exactly their listed properties (`additionalProperties: false`): needed where a
     * response is `oneOf` shapes that differ by added keys, or an object with more keys would match several.
     */
    closedSchemas?: string[];
    /** The document's `webhooks` (OpenAPI 3.1): requests the service sends, keyed by name. */
    webhooks?: OpenAPIObject['webhooks'];
  };
  /** Trust X-Forwarded-* from these reverse proxies (addresses, CIDR ranges; see EnvReader.proxyTrust). */
  trustProxy?: false | string[];
  /** OTEL_EXPORTER_OTLP_ENDPOINT: when set, spans are exported there (see addTracing); unset, nothing is traced. */
  otlpEndpoint?: string;
  /**
   * SHUTDOWN_DRAIN_MS: at shutdown, how long the listener stays open (while connections are left) before it closes
   * and each open connection brings its last request (see ConnectionDrain). 0 or unset: the listener and idle
   * connections close at once.
   */
  shutdownDrainMs?: number;
}

/**
 * Knows when the application begins to shut down: Nest calls `beforeClose()` before any shutdown hook runs, and
 * `close()` after them (the database still open), where the connections drain before Fastify closes.
 */
class PlatformFastifyAdapter extends FastifyAdapter {
  shuttingDown = false;
  drain?: ConnectionDrain;

  override beforeClose(): void {
    this.shuttingDown = true;
    super.beforeClose();
  }

  override async close(): Promise<void> {
    await this.drain?.run();
    await super.close();
  }
}

/**
 * Creates a Nest application on Fastify with the platform's conventions: RFC 9457 errors for everything
 * (including body-parser failures, unknown routes, requests Node's HTTP parser refuses and requests during
 * shutdown), JSON-only request bodies, DTO validation, graceful shutdown, optional OpenAPI; request ids, one access
 * log line per request and the app's logger (json or pretty) for every line, Nest's and Fastify's included.
 */
export async function createHttpApp(
  module: Type | DynamicModule,
  options: HttpAppOptions,
): Promise<NestFastifyApplication> {
  const logger = createAppLogger({ app: options.name, level: options.logLevel, format: options.logFormat });
  const problems = new ProblemTables(options.problems);
  const bodyLimit = options.bodyLimit ?? 256 * 1024;
  const adapter = new PlatformFastifyAdapter({
    bodyLimit,
    trustProxy: options.trustProxy,
    loggerInstance: logger,
    logController: new AccessLogController(logger),
    genReqId: requestIdOf,
    // A request's lines carry its id through the log scope (request-log.ts), not as a child logger's binding.
    childLoggerFactory: (parent: FastifyBaseLogger) => parent,
    clientErrorHandler: (error, socket) => answerClientError(error, socket, logger),
    // What the router refuses before any route or hook (a malformed path 400, a path parameter over its limit 414)
    // would otherwise get Fastify's default error body, which quotes the path.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header(REQUEST_ID_HEADER, request.id);
      sendProblem(reply, toProblem(error, new Logger('ProblemFilter'), problems));
      logAccess(logger, request, reply); // these answers bypass Fastify's request logging
    },
    // Fastify's own 503 while closing is not a problem: the hook below answers instead, from the start of shutdown.
    return503OnClosing: false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    logger: new NestLogger(logger),
    bufferLogs: false,
  });
  const fastify = adapter.getInstance();
  addRequestLogScope(fastify);
  addTracing(fastify, options.name, options.otlpEndpoint);

  // From the start of shutdown every request, on a new or a kept-alive connection, answers 503 (Retry-After), and
  // every answer (those in flight too) closes its connection, so that clients move on to another instance while the
  // shutdown hooks finish and the connections drain.
  fastify.addHook('onRequest', (_request, reply, done) => {
    if (!adapter.shuttingDown) {
      done();
      return;
    }
    sendProblem(reply, problemFor(503, 'The service is shutting down. Try again in a moment.'));
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (adapter.shuttingDown && !adapter.drain?.keepsConnections) void reply.header('connection', 'close');
    done(null, payload);
  });
  if (options.shutdownDrainMs) adapter.drain = new ConnectionDrain(fastify.server, options.shutdownDrainMs);

  // Request bodies are JSON only, on every route: HTML forms post text/plain, application/x-www-form-urlencoded
  // and multipart/form-data across sites without a CORS preflight, so no other type (nor a body without one) is
  // ever read as data; each answers 415 before any handler runs. No body at all is an empty object (see below).
  // Fastify's text/plain parser goes, and Nest adds no urlencoded one when a parser for '*' is registered.
  fastify.removeAllContentTypeParsers();
  app.useBodyParser<RawServerDefault>('*', { bodyLimit }, (_request, body, done) => {
    if (body.length === 0) done(null, {});
    else done(new ProblemException(415, JSON_ONLY_DETAIL));
  });
  // JSON after a look at the nesting (a few kilobytes of '[' parse fine but overflow the stack in the recursive
  // validation that follows), then the input guard's rules (input.guard.ts): strict UTF-8, no NUL or lone surrogate
  // in any string or key, no key that reaches a prototype; each refusal names the field.
  app.useBodyParser<RawServerDefault>('application/json', { bodyLimit }, (_request, body, done) => {
    // No body at all is an empty object, whatever the Content-Type (many HTTP clients send application/json on
    // every request): routes that take none ignore it, routes that need one refuse it in validation, naming each
    // missing field, and a PATCH of only optional fields changes nothing.
    if (body.length === 0) {
      done(null, {});
      return;
    }
    if (nestsDeeperThan(body)) {
      done(
        new ProblemException(400, `The request body nests more than ${MAX_JSON_DEPTH} levels of objects and arrays.`),
      );
      return;
    }
    const parsed = parseJsonBody(body as unknown as Buffer);
    if ('problem' in parsed) done(parsed.problem);
    else done(null, parsed.value);
  });
  // The same rules for the query, path parameters and header fields of every route.
  addInputGuard(fastify);

  // Nest installs Fastify's error handler at init and routes body-parser errors (bad JSON, too large)
  // through the global filters too, so ProblemFilter answers every error.
  app.useGlobalFilters(new ProblemFilter(problems));
  app.useGlobalPipes(createValidationPipe());
  // Exit code 0 once the shutdown is done (rather than dying of the signal that started it).
  app.enableShutdownHooks([], { useProcessExit: true });

  if (options.openApi) mountOpenApi(app, options.openApi);
  return app;
}

/** The services are licensed to no one (package.json: UNLICENSED); OpenAPI 3.1 names that by an SPDX reference. */
const LICENSE = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

function mountOpenApi(app: INestApplication, openApi: NonNullable<HttpAppOptions['openApi']>): void {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(openApi.title)
    .setDescription(openApi.description)
    .setVersion(openApi.version)
    // Relative: the paths are on the server that serves this document, wherever it runs.
    .addServer('/', 'This server');
  openApi.configure?.(builder);
  const document = SwaggerModule.createDocument(app, builder.build());
  document.info.license = LICENSE;
  for (const name of openApi.closedSchemas ?? []) {
    const schema = document.components?.schemas?.[name];
    if (!schema || '$ref' in schema) throw new Error(`OpenAPI: no schema ${name} to close`);
    schema.additionalProperties = false;
  }
  if (openApi.webhooks) document.webhooks = openApi.webhooks;
  const path = openApi.path ?? 'docs';
  SwaggerModule.setup(path, app, document, { jsonDocumentUrl: `${path}-json`, yamlDocumentUrl: `${path}-yaml` });
}
