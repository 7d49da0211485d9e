import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { TypeOrmLogger } from './typeorm-logger.js';

describe('TypeOrmLogger', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it("writes what TypeORM's logging option enables through the app's logger, SQL without colour or parameters", () => {
    const written: [string, unknown][] = [];
    for (const level of ['log', 'warn', 'error'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation((line: unknown) => void written.push([level, line]));
    }
    const enabled = new TypeOrmLogger(['warn', 'migration']);
    enabled.logQuery('SELECT 1', []);
    enabled.logQueryError('boom', 'SELECT $1', ['customer@example.com']);
    enabled.log('warn', 'a warning');
    enabled.logMigration('Migration X has been executed successfully.');
    new TypeOrmLogger('all').logQuerySlow(2_000, 'SELECT * FROM t WHERE email = $1', ['customer@example.com']);

    expect(written).toEqual([
      ['warn', 'a warning'],
      ['log', 'Migration X has been executed successfully.'],
      ['warn', expect.stringMatching(/SELECT \* FROM t WHERE email = \$1.*execution time: 2000/)],
    ]);
    const text = written.map(([, line]) => String(line)).join('\n');
    expect(text).not.toContain('customer@example.com');
    expect(text).not.toContain('\x1b');
  });
});
