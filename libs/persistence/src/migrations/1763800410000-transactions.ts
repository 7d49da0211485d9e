import type { MigrationInterface, QueryRunner } from 'typeorm';

const STATUSES = [
  'waiting',
  'confirmed',
  'authorized',
  'reserved',
  'uncaptured',
  'refund_pending',
  'refunded',
  'partially-refunded',
  'chargeback',
  'cancelled',
  'declined',
  'error',
];
const list = (values: string[]) => values.map((value) => `'${value}'`).join(', ');

/**
 * What transaction-api records: transactions, subscriptions, payouts, and the transactional outbox their events
 * wait in until the relay has published them to `payments.events`. (The writers NOTIFY `outbox_event` themselves,
 * and only when their own process is not the relay: a NOTIFY serialises commits, so it is not a trigger.)
 *
 * Transactions are read newest first with keyset pagination on (created_at DESC, uuid DESC) inside one merchant;
 * one index per filter the merchant API offers keeps every page an index range scan, whatever its depth.
 * No raw 3-D Secure data is ever stored: `three_d_secure` holds only the resolved {eci, source, version, flow}
 * (a CHECK rejects anything else), and `creation_fingerprint` is a SHA-256 of the normalised creation request
 * (without the raw authentication) for idempotent retries.
 */
export class Transactions1763800410000 implements MigrationInterface {
  name = 'Transactions1763800410000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE transaction (
        uuid uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchant(id),
        integration_id uuid REFERENCES integration(id),
        reference_id text CHECK (length(reference_id) BETWEEN 1 AND 255),
        status text NOT NULL CHECK (status IN (${list(STATUSES)})),
        psp text NOT NULL CHECK (length(psp) BETWEEN 1 AND 100),
        type text NOT NULL CHECK (type IN ('e-commerce', 'pos', 'tap-to-pay')),
        payment_method text NOT NULL CHECK (length(payment_method) BETWEEN 1 AND 50),
        amount bigint NOT NULL CHECK (amount > 0),
        currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        three_d_secure jsonb CHECK (
          three_d_secure IS NULL
          OR (jsonb_typeof(three_d_secure) = 'object'
              AND three_d_secure - ARRAY['eci', 'source', 'version', 'flow'] = '{}'::jsonb)
        ),
        creation_fingerprint bytea NOT NULL,
        created_at timestamptz NOT NULL CHECK (created_at = date_trunc('milliseconds', created_at)),
        updated_at timestamptz NOT NULL
      )`);
    // Keyset pagination, newest first, one merchant; plus one index per filter of the list endpoint.
    await queryRunner.query(
      `CREATE INDEX transaction_merchant_page_idx ON transaction (merchant_id, created_at DESC, uuid DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX transaction_status_page_idx ON transaction (merchant_id, status, created_at DESC, uuid DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX transaction_reference_page_idx ON transaction (merchant_id, reference_id, created_at DESC, uuid DESC) WHERE reference_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX transaction_psp_page_idx ON transaction (merchant_id, psp, created_at DESC, uuid DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX transaction_type_page_idx ON transaction (merchant_id, type, created_at DESC, uuid DESC)`,
    );

    await queryRunner.query(`
      CREATE TABLE subscription (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchant(id),
        integration_id uuid REFERENCES integration(id),
        reference_id text CHECK (length(reference_id) BETWEEN 1 AND 255),
        amount bigint NOT NULL CHECK (amount > 0),
        currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        interval text NOT NULL CHECK (length(interval) BETWEEN 1 AND 20),
        status text NOT NULL CHECK (status IN ('active', 'past_due', 'cancelled', 'ended')),
        last_event text CHECK (last_event IN ('renewed', 'payment_failed', 'cancelled', 'ended')),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX subscription_merchant_idx ON subscription (merchant_id, created_at DESC)`);

    await queryRunner.query(`
      CREATE TABLE payout (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchant(id),
        amount bigint NOT NULL CHECK (amount > 0),
        currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
        status text NOT NULL CHECK (status IN ('initialised', 'processing', 'paid', 'failed')),
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX payout_merchant_idx ON payout (merchant_id, created_at DESC)`);

    // The outbox: one row per event, written in the same database transaction as the change it describes.
    // `payload` is the exact JSON published (json keeps the text as written); `seq` is the publishing order.
    await queryRunner.query(`
      CREATE TABLE outbox_event (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        type text NOT NULL,
        subject_id uuid NOT NULL,
        payload json NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX outbox_event_pending_idx ON outbox_event (seq) WHERE sent_at IS NULL`);
    await queryRunner.query(`CREATE INDEX outbox_event_sent_idx ON outbox_event (sent_at) WHERE sent_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE outbox_event`);
    await queryRunner.query(`DROP TABLE payout`);
    await queryRunner.query(`DROP TABLE subscription`);
    await queryRunner.query(`DROP TABLE transaction`);
  }
}
