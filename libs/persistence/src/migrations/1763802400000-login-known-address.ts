import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The client addresses each backend e-mail has signed in from (docs/webhook-config.md, sign-in limits): sign-ins
 * from such an address do not draw on the e-mail's shared budget of failed attempts, so that guessing from other
 * addresses cannot lock the owner out of the backend. One row per (e-mail, address), the last successful sign-in;
 * rows older than the policy's memory are removed as sign-ins happen. webhook-config owns it.
 */
export class LoginKnownAddress1763802400000 implements MigrationInterface {
  name = 'LoginKnownAddress1763802400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE backend.login_known_address (
        email text NOT NULL,
        address text NOT NULL,
        signed_in_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (email, address)
      )`);
    await queryRunner.query(
      `CREATE INDEX login_known_address_signed_in_idx ON backend.login_known_address (signed_in_at)`,
    );
    await queryRunner.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON backend.login_known_address TO webhook_config`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE backend.login_known_address`);
  }
}
