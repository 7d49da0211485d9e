import { describe, expect, it } from '@jest/globals';
import { createAppLogger } from './app-logger.js';
import { NestLogger } from './nest-logger.js';

function capture(level: 'debug' | 'info') {
  const lines: string[] = [];
  const logger = createAppLogger({
    app: 'unit',
    level,
    format: 'json',
    destination: { write: (line) => lines.push(line) },
  });
  const fields = () =>
    lines.map((line) => {
      const { time: _time, app: _app, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return rest;
    });
  return { nest: new NestLogger(logger), fields };
}

describe('NestLogger', () => {
  it("writes Nest's calls as lines: the context last, an object's fields, an Error as err, a caught error's stack", () => {
    const { nest, fields } = capture('debug');
    nest.log('plain', 'Ctx');
    nest.warn({ msg: 'about a delivery', deliveryId: 'd-1', webhookId: 'w-1' }, 'Delivery');
    nest.error(new Error('went wrong'), 'Ctx');
    nest.error('caught', 'Error: caught\n    at somewhere', 'ExceptionHandler');
    nest.debug('detail');
    nest.fatal('cannot start');

    const written = fields();
    expect(written).toEqual([
      { level: 'info', context: 'Ctx', msg: 'plain' },
      { level: 'warn', context: 'Delivery', deliveryId: 'd-1', webhookId: 'w-1', msg: 'about a delivery' },
      {
        level: 'error',
        context: 'Ctx',
        err: expect.objectContaining({ type: 'Error', message: 'went wrong', stack: expect.stringContaining('at ') }),
        msg: 'went wrong',
      },
      { level: 'error', context: 'ExceptionHandler', err: { stack: 'Error: caught\n    at somewhere' }, msg: 'caught' },
      { level: 'debug', msg: 'detail' },
      { level: 'fatal', msg: 'cannot start' },
    ]);
  });

  it("keeps to the level, and logs Nest's start-up lines (modules, routes) at debug", () => {
    const { nest, fields } = capture('info');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('Mapped {/items, GET} route', 'RouterExplorer');
    nest.debug('detail');
    nest.verbose('more detail');
    nest.log('Nest application successfully started', 'NestApplication');
    expect(fields()).toEqual([
      { level: 'info', context: 'NestApplication', msg: 'Nest application successfully started' },
    ]);

    const verbose = capture('debug');
    verbose.nest.log('Mapped {/items, GET} route', 'RouterExplorer');
    expect(verbose.fields()).toEqual([
      { level: 'debug', context: 'RouterExplorer', msg: 'Mapped {/items, GET} route' },
    ]);
  });
});
