import { Logger } from '@nestjs/common';
import { AbstractLogger, type LogLevel, type LogMessage } from 'typeorm';

/**
 * What TypeORM logs (what its `logging` option enables), as lines of the app's logger: its own loggers write coloured
 * text to the console. SQL without colour and without its parameters (they may be customer data or secrets).
 */
export class TypeOrmLogger extends AbstractLogger {
  private readonly logger = new Logger('TypeORM');

  protected writeLog(level: LogLevel, message: LogMessage | string | number | (LogMessage | string | number)[]): void {
    const messages = this.prepareLogMessages(message, { highlightSql: false, appendParameterAsComment: false });
    // One line per call (a slow query comes as the query and its time).
    const line = messages.map(({ prefix, message: text }) => (prefix ? `${prefix} ${text}` : String(text))).join(' ');
    const types = messages.map(({ type }) => type);
    if (level === 'error' || types.includes('query-error')) this.logger.error(line);
    else if (level === 'warn' || types.includes('query-slow')) this.logger.warn(line);
    else this.logger.log(line);
  }
}
