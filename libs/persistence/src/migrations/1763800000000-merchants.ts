import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Merchants and their integrations (API keys, stored only as SHA-256 hashes). */
export class Merchants1763800000000 implements MigrationInterface {
  name = 'Merchants1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchant (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE integration (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchant(id) ON DELETE CASCADE,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        api_key_hash bytea NOT NULL UNIQUE,
        api_key_prefix text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX integration_merchant_idx ON integration (merchant_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE integration`);
    await queryRunner.query(`DROP TABLE merchant`);
  }
}
