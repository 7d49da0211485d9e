import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { PG_POOL } from '../common/pg-pool.js';
import { sqlOf, type Sql } from '../common/sql.js';

export interface NewIntegration {
  id: string;
  merchantId: string;
  name: string;
  apiKeyHash: Buffer;
  apiKeyPrefix: string;
}

/** Merchants and integrations, on the pg pool with named (prepared) statements. */
@Injectable()
export class MerchantRepository {
  private readonly sql: Sql;

  constructor(@Inject(PG_POOL) pool: pg.Pool) {
    this.sql = sqlOf(pool);
  }

  async insertMerchant(merchant: { id: string; name: string }): Promise<void> {
    await this.sql.rows('INSERT INTO merchant (id, name) VALUES ($1, $2)', [merchant.id, merchant.name]);
  }

  async merchantExists(id: string): Promise<boolean> {
    return (await this.sql.rows('SELECT 1 FROM merchant WHERE id = $1', [id], 'merchant-exists')).length > 0;
  }

  async insertIntegration(integration: NewIntegration): Promise<void> {
    await this.sql.rows(
      'INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, $3, $4, $5)',
      [integration.id, integration.merchantId, integration.name, integration.apiKeyHash, integration.apiKeyPrefix],
    );
  }

  async findIntegrationByKeyHash(apiKeyHash: Buffer): Promise<{ id: string; merchantId: string } | null> {
    const [found] = await this.sql.rows<{ id: string; merchantId: string }>(
      'SELECT id, merchant_id AS "merchantId" FROM integration WHERE api_key_hash = $1',
      [apiKeyHash],
      'integration-by-key-hash',
    );
    return found ?? null;
  }

  /** The merchant an integration belongs to, or null when there is no such integration. */
  async integrationMerchant(integrationId: string): Promise<string | null> {
    const [found] = await this.sql.rows<{ merchantId: string }>(
      'SELECT merchant_id AS "merchantId" FROM integration WHERE id = $1',
      [integrationId],
      'integration-merchant',
    );
    return found?.merchantId ?? null;
  }
}
