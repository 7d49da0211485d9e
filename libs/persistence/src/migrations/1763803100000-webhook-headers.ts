import type { MigrationInterface, QueryRunner } from 'typeorm';

const CONFIG = 'webhook_config';
const DISPATCHER = 'webhook_dispatcher';

/**
 * A webhook's custom headers (issue #34, CONTRACT §5): `backend.webhook_header`, owned by webhook-config, one row per
 * header in the order the merchant gave them (`position` 0–9). The value is stored only encrypted (`ciphertext`,
 * AES-256-GCM with SECRET_ENCRYPTION_KEY, bound to the webhook and the lowercase name, like the signing secrets);
 * names are unique per webhook in any letter case. The dispatcher reads them through
 * `backend.webhook_header_for_dispatcher`, still encrypted, and decrypts them when it loads the webhook.
 */
export class WebhookHeaders1763803100000 implements MigrationInterface {
  name = 'WebhookHeaders1763803100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE backend.webhook_header (
        webhook_id uuid NOT NULL REFERENCES backend.webhook (id) ON DELETE CASCADE,
        position smallint NOT NULL CONSTRAINT webhook_header_position_check CHECK (position BETWEEN 0 AND 9),
        name text NOT NULL CONSTRAINT webhook_header_name_check CHECK (name ~ '^[!#$%&''*+.^_\`|~0-9A-Za-z-]{1,100}$'),
        ciphertext bytea NOT NULL,
        PRIMARY KEY (webhook_id, position)
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX webhook_header_name_key ON backend.webhook_header (webhook_id, lower(name))`,
    );
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON backend.webhook_header TO ${CONFIG}`);
    await queryRunner.query(
      `CREATE VIEW backend.webhook_header_for_dispatcher AS
         SELECT webhook_id, position, name, ciphertext FROM backend.webhook_header`,
    );
    await queryRunner.query(
      `COMMENT ON VIEW backend.webhook_header_for_dispatcher IS ` +
        `'webhook-dispatcher: a webhook''s custom headers, values still encrypted with SECRET_ENCRYPTION_KEY.'`,
    );
    await queryRunner.query(`GRANT SELECT ON backend.webhook_header_for_dispatcher TO ${DISPATCHER}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP VIEW backend.webhook_header_for_dispatcher`);
    await queryRunner.query(`DROP TABLE backend.webhook_header`);
  }
}
