import type { LoggerService, LogLevel } from '@nestjs/common';
import type { Level, Logger } from 'pino';

const LEVELS: Record<LogLevel, Level> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/** Nest's own start-up lines (each module initialised, each route mapped): detail for debugging, not news. */
const STARTUP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * Nest's LoggerService over the app's pino logger: every `new Logger(context).warn(…)` in the code ends up here.
 * The message is a string, an Error (logged as `err`), or an object of fields with its text in `msg`:
 * `logger.warn({ msg: 'no stand-in', deliveryId })` makes `deliveryId` a field of the line. Nest passes the
 * logger's context last (the `context` field) and, for errors it caught, the stack before it (`err.stack`).
 */
export class NestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(nestLevel: LogLevel, message: unknown, params: unknown[]): void {
    const last = params.at(-1);
    const context = params.length > 0 && typeof last === 'string' ? last : undefined;
    const level = context !== undefined && STARTUP_CONTEXTS.has(context) ? 'debug' : LEVELS[nestLevel];
    if (!this.logger.isLevelEnabled(level)) return;

    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    let msg: string;
    if (message instanceof Error) {
      fields.err = message;
      msg = message.message;
    } else if (typeof message === 'object' && message !== null) {
      const { msg: text, ...rest } = message as { msg?: unknown };
      Object.assign(fields, rest);
      msg = String(text ?? '');
    } else {
      msg = String(message);
    }
    const stack = params.length > 1 ? params.at(-2) : undefined;
    if (typeof stack === 'string' && (nestLevel === 'error' || nestLevel === 'fatal')) fields.err = { stack };
    this.logger[level](fields, msg);
  }
}
