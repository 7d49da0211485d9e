import { ConsoleLogger, DynamicModule, INestApplication, LogLevel, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { RawServerDefault } from 'fastify';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { ProblemException } from './problem.js';
import { ProblemFilter } from './problem.filter.js';
import { createValidationPipe } from './validation.pipe.js';

const LEVELS: Record<string, LogLevel[]> = {
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  info: ['fatal', 'error', 'warn', 'log'],
  warn: ['fatal', 'error', 'warn'],
  error: ['fatal', 'error'],
};

export interface HttpAppOptions {
  /** Shown in every log line. */
  name: string;
  logLevel: string;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
  /** Serve OpenAPI at /docs and /docs-json. */
  openApi?: {
    title: string;
    description: string;
    version: string;
    configure?: (builder: DocumentBuilder) => void;
    /**
     * Schemas whose objects carry exactly their listed properties (`additionalProperties: false`): needed where a
     * response is `oneOf` shapes that differ by added keys, or an object with more keys would match several.
     */
    closedSchemas?: string[];
  };
  /** Trust X-Forwarded-* from these reverse proxies (addresses, CIDR ranges; see EnvReader.proxyTrust). */
  trustProxy?: false | string[];
}

/**
 * Creates a Nest application on Fastify with the platform's conventions: RFC 9457 errors for everything
 * (including body-parser failures and unknown routes), DTO validation, graceful shutdown, optional OpenAPI.
 */
export async function createHttpApp(
  module: Type | DynamicModule,
  options: HttpAppOptions,
): Promise<NestFastifyApplication> {
  const logger = new ConsoleLogger({ prefix: options.name, logLevels: LEVELS[options.logLevel] ?? LEVELS.info });
  const bodyLimit = options.bodyLimit ?? 256 * 1024;
  const adapter = new FastifyAdapter({ bodyLimit, trustProxy: options.trustProxy });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { logger, bufferLogs: false });

  // Fastify's own JSON parser (prototype-poisoning checks included), after a look at the nesting: a few kilobytes
  // of '[' parse fine but overflow the stack in the recursive validation that follows.
  const parseJson = adapter.getInstance().getDefaultJsonParser('error', 'error');
  app.useBodyParser<RawServerDefault>('application/json', { bodyLimit }, (request, body, done) => {
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
    parseJson(request, body as unknown as string, done);
  });

  // Nest installs Fastify's error handler at init and routes body-parser errors (bad JSON, too large)
  // through the global filters too, so ProblemFilter answers every error.
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();

  if (options.openApi) mountOpenApi(app, options.openApi);
  return app;
}

function mountOpenApi(app: INestApplication, openApi: NonNullable<HttpAppOptions['openApi']>): void {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle(openApi.title)
    .setDescription(openApi.description)
    .setVersion(openApi.version);
  openApi.configure?.(builder);
  const document = SwaggerModule.createDocument(app, builder.build());
  for (const name of openApi.closedSchemas ?? []) {
    const schema = document.components?.schemas?.[name];
    if (!schema || '$ref' in schema) throw new Error(`OpenAPI: no schema ${name} to close`);
    schema.additionalProperties = false;
  }
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
}
