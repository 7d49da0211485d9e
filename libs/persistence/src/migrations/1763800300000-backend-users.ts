import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Merchant backend logins (webhook-config): users with scrypt password hashes, server-side sessions keyed by
 * the SHA-256 of the cookie token (a stolen database row cannot be replayed as a cookie), and failed sign-in
 * attempts, counted per e-mail and per client address so the limit holds across every webhook-config process.
 */
export class BackendUsers1763800300000 implements MigrationInterface {
  name = 'BackendUsers1763800300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE backend_user (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchant(id) ON DELETE CASCADE,
        email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254 AND email = lower(email)),
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One login per e-mail address across all merchants: sign-in asks only for e-mail and password.
    await queryRunner.query(`CREATE UNIQUE INDEX backend_user_email_idx ON backend_user (email)`);
    await queryRunner.query(`CREATE INDEX backend_user_merchant_idx ON backend_user (merchant_id)`);

    await queryRunner.query(`
      CREATE TABLE backend_session (
        id uuid PRIMARY KEY,
        token_hash bytea NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES backend_user(id) ON DELETE CASCADE,
        merchant_id uuid NOT NULL REFERENCES merchant(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX backend_session_expiry_idx ON backend_session (expires_at)`);

    await queryRunner.query(`
      CREATE TABLE login_failure (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX login_failure_key_idx ON login_failure (key, created_at)`);
    await queryRunner.query(`CREATE INDEX login_failure_created_idx ON login_failure (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE login_failure`);
    await queryRunner.query(`DROP TABLE backend_session`);
    await queryRunner.query(`DROP TABLE backend_user`);
  }
}
