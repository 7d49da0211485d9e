import { describe, expect, it } from '@jest/globals';
import { stripVTControlCharacters } from 'node:util';
import { createAppLogger, type LogFormat } from './app-logger.js';
import { addLogFields, runInLogFields, withLogFields } from './log-context.js';

/** A logger writing into an array, one entry per line. */
function capture(format: LogFormat, level: 'debug' | 'info' = 'info') {
  const lines: string[] = [];
  const logger = createAppLogger({ app: 'unit', level, format, destination: { write: (line) => lines.push(line) } });
  return { logger, lines, json: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('createAppLogger', () => {
  it('json: one object per line with time, level name, app and msg, and the log fields in scope', () => {
    const { logger, lines, json } = capture('json');
    logger.info('outside any scope');
    withLogFields({ eventId: 'e-1', deliveryId: 'd-1' }, () => {
      logger.warn({ attempt: 2 }, 'in a delivery');
      withLogFields({ webhookId: 'w-1' }, () => logger.error('nested'));
    });
    const request = { requestId: 'r-1' };
    runInLogFields(request, () => {
      logger.info('before the merchant is known');
      addLogFields({ merchantId: 'm-1', traceId: 't-1' });
      logger.info('after');
    });
    logger.debug('below the level');

    expect(lines.every((line) => line.endsWith('\n') && line.indexOf('\n') === line.length - 1)).toBe(true);
    expect(json().map(({ time, ...line }) => [typeof time, line])).toEqual([
      ['string', { level: 'info', app: 'unit', msg: 'outside any scope' }],
      ['string', { level: 'warn', app: 'unit', eventId: 'e-1', deliveryId: 'd-1', attempt: 2, msg: 'in a delivery' }],
      ['string', { level: 'error', app: 'unit', eventId: 'e-1', deliveryId: 'd-1', webhookId: 'w-1', msg: 'nested' }],
      ['string', { level: 'info', app: 'unit', requestId: 'r-1', msg: 'before the merchant is known' }],
      ['string', { level: 'info', app: 'unit', requestId: 'r-1', merchantId: 'm-1', traceId: 't-1', msg: 'after' }],
    ]);
    expect(Date.parse(json()[0].time as string)).not.toBeNaN();
    // A line's own fields never leak into the scope.
    expect(request).toEqual({ requestId: 'r-1', merchantId: 'm-1', traceId: 't-1' });
  });

  it('redacts credentials in header fields and secret keys, should an object carrying them be logged', () => {
    const { logger, lines } = capture('json');
    logger.info(
      {
        headers: { authorization: 'Bearer top-secret-1', 'x-api-key': 'top-secret-2', accept: 'application/json' },
        req: { headers: { cookie: 'top-secret-3', 'webhook-signature': 'v1,top-secret-4' } },
        webhook: { secret: 'whsec_top-secret-5', url: 'https://example.com/hook' },
        password: 'top-secret-6',
      },
      'carrying secrets',
    );
    expect(lines.join('')).not.toContain('top-secret');
    expect(JSON.parse(lines[0])).toEqual(
      expect.objectContaining({
        headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'application/json' },
        webhook: { secret: '[redacted]', url: 'https://example.com/hook' },
      }),
    );
  });

  it('pretty: one readable line per entry (time, level, app, context, message, then the fields)', () => {
    const { logger, lines } = capture('pretty');
    withLogFields({ requestId: 'r-2' }, () => logger.info({ context: 'Items' }, 'reading item 42'));
    logger.warn('no context');
    const plain = lines.map((line) => stripVTControlCharacters(line));
    expect(plain).toEqual([
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: unit: \[Items\] reading item 42 \{"requestId":"r-2"\}\n$/,
      ),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: unit: no context\n$/),
    ]);
  });
});
