import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { testEnv } from '#testing';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source.options.js';

/** What the apps' data source writes to the log when a statement fails: never its parameters. */
describe('data source logging (real PostgreSQL)', () => {
  const dataSource = new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 1 }));
  beforeAll(async () => {
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource.destroy();
  });

  it('keeps the parameters of a failed statement (URL tokens, payloads) out of the log', async () => {
    const written: string[] = [];
    const capture = (...args: unknown[]) => void written.push(args.map(String).join(' '));
    const spies = (['log', 'info', 'warn', 'error'] as const).map((level) =>
      jest.spyOn(console, level).mockImplementation(capture),
    );
    try {
      await expect(
        dataSource.query('SELECT $1::int', ['http://shop.example/hook?token=QUERYSECRET10']),
      ).rejects.toThrow(/invalid input syntax/);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(written.join('\n')).not.toContain('QUERYSECRET10');
  });
});
