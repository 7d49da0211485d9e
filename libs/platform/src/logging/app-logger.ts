import { pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { currentLogFields } from './log-context.js';

export const LOG_FORMATS = ['json', 'pretty'] as const;
/** `json`: one JSON object per line, for a log collector. `pretty`: one readable line per entry, for people. */
export type LogFormat = (typeof LOG_FORMATS)[number];

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** Request and response header fields that carry credentials or signatures. */
const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'cookie',
  'set-cookie',
  'x-csrf-token',
  'webhook-signature',
  'x-webhook-signature',
];
/** Keys whose values are secrets wherever they appear in a logged object. */
const SECRET_KEYS = ['password', 'secret', 'secrets', 'apiKey', 'token', 'cavv'];

/**
 * Defence in depth: no log line is written with these, yet a `headers` object or a record passed to the logger
 * one day must not leak them. Matched at the top level and one level down (`req.headers…`).
 */
export const REDACTED_PATHS = [
  ...SECRET_HEADERS.flatMap((name) => [`headers["${name}"]`, `*.headers["${name}"]`]),
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`]),
];

export interface AppLoggerOptions {
  /** The app's name: the `app` field of every line. */
  app: string;
  level: LogLevelName;
  format: LogFormat;
  /** Where lines go; process.stdout unless given (tests read their own). */
  destination?: DestinationStream;
}

/**
 * The app's one logger (pino). Every line has `time` (ISO 8601), `level` (its name), `app` and `msg`, plus the log
 * fields in scope (request, merchant, event, delivery, webhook, trace: see log-context.ts). `json` writes no colour
 * codes; `pretty` colours only when the output is a terminal (or FORCE_COLOR says so).
 */
export function createAppLogger(options: AppLoggerOptions): Logger {
  const destination = options.destination ?? process.stdout;
  return pino(
    {
      level: options.level,
      base: { app: options.app },
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // A fresh object each line: pino merges the line's own fields into it.
      mixin: () => ({ ...currentLogFields() }),
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // What Fastify passes as `req`/`res` in its own lines: the route template and status, never the URL (its query
      // may hold customer data) or the header fields.
      serializers: {
        req: (request: { method?: string; routeOptions?: { url?: string } }) => ({
          method: request.method,
          route: request.routeOptions?.url,
        }),
        res: (reply: { statusCode?: number }) => ({ status: reply.statusCode }),
      },
    },
    options.format === 'json' ? destination : prettyDestination(destination),
  );
}

/** Writes each JSON line as one readable line: `[time] LEVEL: app: [context] msg {fields}`. */
function prettyDestination(destination: DestinationStream): DestinationStream {
  const pretty = prettyFactory({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'app,context',
    messageFormat: '{app}: {if context}[{context}] {end}{msg}',
    singleLine: true,
  });
  return { write: (line: string) => destination.write(pretty(line)) };
}
