import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sessionConnection, TRANSACTION_API_DATABASE } from '#persistence';
import { testEnv } from '#testing';
import pg from 'pg';
import { hashApiKey, looksLikeApiKey } from '#domain';
import { MerchantExceptionCode } from './merchant.exception.js';
import { MerchantRepository } from './merchant.repository.js';
import { MerchantService } from './merchant.service.js';

/** Merchants and their integrations' API keys, on a real database as transaction-api's role. */
describe('MerchantService (real PostgreSQL)', () => {
  const pool = new pg.Pool({ ...sessionConnection(testEnv().databaseUrl, TRANSACTION_API_DATABASE), max: 2 });
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 1 });
  const merchants = new MerchantService(new MerchantRepository(pool));

  afterAll(async () => {
    await pool.end();
    await admin.end();
  });

  it('creates a merchant, and an integration whose API key is answered once and stored only as its hash', async () => {
    const merchant = await merchants.createMerchant('Shop');
    expect((await admin.query(`SELECT name FROM merchant WHERE id = $1`, [merchant.id])).rows).toEqual([
      { name: 'Shop' },
    ]);
    const integration = await merchants.createIntegration(merchant.id, 'Web shop');
    expect(looksLikeApiKey(integration.apiKey)).toBe(true);
    const [row] = (
      await admin.query(`SELECT merchant_id, name, api_key_hash, api_key_prefix FROM integration WHERE id = $1`, [
        integration.id,
      ])
    ).rows;
    expect(row).toMatchObject({ merchant_id: merchant.id, name: 'Web shop' });
    expect(row.api_key_hash).toEqual(hashApiKey(integration.apiKey));
    expect(integration.apiKey.startsWith(row.api_key_prefix)).toBe(true);
    expect(row.api_key_prefix.length).toBeLessThan(integration.apiKey.length);
    // Each integration its own key.
    const second = await merchants.createIntegration(merchant.id, 'App');
    expect(second.apiKey).not.toBe(integration.apiKey);
  });

  it('refuses an integration of a merchant that does not exist', async () => {
    await expect(merchants.createIntegration(randomUUID(), 'Nobody')).rejects.toMatchObject({
      code: MerchantExceptionCode.NOT_FOUND,
    });
  });
});
