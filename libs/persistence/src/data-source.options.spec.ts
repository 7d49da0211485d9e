import { describe, expect, it } from '@jest/globals';
import {
  dataSourceOptions,
  pgPoolConfig,
  sessionConnection,
  TRANSACTION_API_DATABASE,
  WEBHOOK_CONFIG_DATABASE,
} from './data-source.options.js';

describe('sessionConnection', () => {
  const url = 'postgres://app:secret@db.example:5432/payments?application_name=x';

  it('leaves the URL alone and sets nothing without a role or schema (the migrator sets its schema only)', () => {
    expect(sessionConnection(url, {})).toEqual({ connectionString: url });
    expect(sessionConnection(url, { schema: 'public' })).toEqual({
      connectionString: url,
      options: '-c search_path=public',
    });
  });

  it("takes the app's role and searches its schema, in the start-up options", () => {
    expect(sessionConnection(url, WEBHOOK_CONFIG_DATABASE)).toEqual({
      connectionString: url,
      options: '-c role=webhook_config -c search_path=backend',
    });
  });

  it("keeps the URL's own options ahead of the app's (pg would let the URL's replace them)", () => {
    const session = sessionConnection(
      `${url}&options=-c%20role%3Dother%20-c%20lock_timeout%3D5s`,
      WEBHOOK_CONFIG_DATABASE,
    );
    expect(session.options).toBe('-c role=other -c lock_timeout=5s -c role=webhook_config -c search_path=backend');
    expect(new URL(session.connectionString).searchParams.has('options')).toBe(false);
    expect(new URL(session.connectionString).searchParams.get('application_name')).toBe('x');
  });
});

describe('pgPoolConfig', () => {
  it("gives a pool of its own the TypeORM data source's sessions: role, schema, timeouts, size, name", () => {
    const options = {
      url: 'postgres://app@db.example/payments',
      poolSize: 7,
      applicationName: 'transaction-api',
      statementTimeoutMs: 3_000,
      ...TRANSACTION_API_DATABASE,
    };
    const pool = pgPoolConfig(options);
    expect(pool).toMatchObject({
      connectionString: options.url,
      application_name: 'transaction-api',
      max: 7,
      options: '-c role=transaction_api -c search_path=payments',
      statement_timeout: 3_000,
      idle_in_transaction_session_timeout: 60_000,
    });
    const { connectionString, application_name, ...extra } = pool;
    expect(dataSourceOptions(options)).toMatchObject({
      url: connectionString,
      applicationName: application_name,
      extra,
    });
  });
});
