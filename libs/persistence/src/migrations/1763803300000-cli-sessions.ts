import type { MigrationInterface, QueryRunner } from 'typeorm';

const CONFIG = 'webhook_config';

/**
 * `payments listen` sessions (issue #34, CONTRACT §8), owned by webhook-config, which serves the command line:
 * - `payments.integration_for_api_key(key_hash)`: transaction-api's answer to "whose key is this?" for webhook-config,
 *   which authenticates the command line with the merchant's API key. It takes the key's SHA-256 and returns the
 *   integration and its merchant, or nothing; webhook-config can only ask about a key it holds, never list keys or
 *   read a hash. SECURITY DEFINER with the migrating login's rights, names everything with its schema and searches
 *   only pg_catalog (like the dispatcher's partition functions).
 * - `backend.cli_session`: one row per session, its signing secret only encrypted (bound to the session id), the
 *   settings it listens with, and when it was last connected. Ended sessions are deleted after a day.
 * - `backend.cli_session_log`: one row per event the command line forwarded (the local status and duration it
 *   reported; once per event and session, however often it was reported), deleted with its session; at most the
 *   newest 1,000 are kept per session.
 */
export class CliSessions1763803300000 implements MigrationInterface {
  name = 'CliSessions1763803300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION payments.integration_for_api_key(key_hash bytea)
        RETURNS TABLE (integration_id uuid, merchant_id uuid)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
          SELECT i.id, i.merchant_id FROM payments.integration i WHERE i.api_key_hash = key_hash
        $$`);
    await queryRunner.query(`REVOKE ALL ON FUNCTION payments.integration_for_api_key(bytea) FROM PUBLIC`);
    await queryRunner.query(`GRANT EXECUTE ON FUNCTION payments.integration_for_api_key(bytea) TO ${CONFIG}`);
    await queryRunner.query(
      `COMMENT ON FUNCTION payments.integration_for_api_key(bytea) IS ` +
        `'webhook-config: the integration and merchant of an API key, by the key''s SHA-256 (payments listen).'`,
    );
    await queryRunner.query(`
      CREATE TABLE backend.cli_session (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL,
        integration_id uuid NOT NULL,
        events text[] NOT NULL,
        version text NOT NULL,
        content_type text NOT NULL,
        forward_to text CONSTRAINT cli_session_forward_to_check CHECK (length(forward_to) <= 2048),
        secret_ciphertext bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- When the last connection closed (its creation before the first one); null while one is connected.
        disconnected_at timestamptz DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        ended_at timestamptz
      )`);
    await queryRunner.query(
      `CREATE INDEX cli_session_live_idx ON backend.cli_session (merchant_id, integration_id) WHERE ended_at IS NULL`,
    );
    await queryRunner.query(`CREATE INDEX cli_session_ended_idx ON backend.cli_session (ended_at)`);
    await queryRunner.query(`
      CREATE TABLE backend.cli_session_log (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id uuid NOT NULL REFERENCES backend.cli_session (id) ON DELETE CASCADE,
        webhook_id text NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        subject_id text NOT NULL,
        reference_id text,
        status integer NOT NULL,
        duration_ms integer NOT NULL,
        error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX cli_session_log_session_idx ON backend.cli_session_log (session_id, id)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX cli_session_log_event_key ON backend.cli_session_log (session_id, webhook_id)`,
    );
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON backend.cli_session, backend.cli_session_log TO ${CONFIG}`,
    );
    await queryRunner.query(`GRANT USAGE ON SEQUENCE backend.cli_session_log_id_seq TO ${CONFIG}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE backend.cli_session_log`);
    await queryRunner.query(`DROP TABLE backend.cli_session`);
    await queryRunner.query(`DROP FUNCTION payments.integration_for_api_key(bytea)`);
  }
}
