import type { MigrationInterface, QueryRunner } from 'typeorm';

const DISPATCHER = 'webhook_dispatcher';
const CONFIG = 'webhook_config';

/** The day-partitioned delivery tables, as the partition functions keep them (before, after). */
const BEFORE = ['webhook_delivery', 'webhook_log'];
const AFTER = ['webhook_delivery', 'webhook_log', 'webhook_delivery_outcome'];

const dayPartitions = (parents: string[]) => `
  CREATE OR REPLACE FUNCTION delivery.day_partitions()
    RETURNS TABLE (parent text, name text, from_time timestamptz, to_time timestamptz)
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
      SELECT p.relname::text, c.relname::text,
             substring(b.bound FROM 'FROM \\(''([^'']+)''\\)')::timestamptz,
             substring(b.bound FROM 'TO \\(''([^'']+)''\\)')::timestamptz
        FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid
        JOIN pg_class p ON p.oid = i.inhparent
       CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
       WHERE p.relnamespace = 'delivery'::regnamespace AND p.relname IN (${parents.map((p) => `'${p}'`).join(', ')})
    $$`;

const createDayPartitions = (parents: string[]) => `
  CREATE OR REPLACE FUNCTION delivery.create_day_partitions(first_day date, last_day date)
    RETURNS SETOF text LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp SET lock_timeout = '5s' AS $$
    DECLARE
      day date;
      parent text;
      part text;
    BEGIN
      IF last_day < first_day OR last_day - first_day > 400 THEN
        RAISE EXCEPTION 'create_day_partitions: % to % is not a range of 1 to 401 days', first_day, last_day;
      END IF;
      FOR day IN SELECT generate_series(first_day, last_day, interval '1 day')::date LOOP
        FOREACH parent IN ARRAY ARRAY[${parents.map((p) => `'${p}'`).join(', ')}] LOOP
          part := parent || '_p' || to_char(day, 'YYYYMMDD');
          CONTINUE WHEN to_regclass('delivery.' || part) IS NOT NULL;
          EXECUTE format('CREATE TABLE delivery.%I (LIKE delivery.%I INCLUDING ALL)', part, parent);
          EXECUTE format('ALTER TABLE delivery.%I ATTACH PARTITION delivery.%I FOR VALUES FROM (%L) TO (%L)',
                         parent, part, day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
          RETURN NEXT part;
        END LOOP;
      END LOOP;
    END $$`;

/** Drops one detached day partition of the tables matched by `pattern` (a detached one is dropped in the same run). */
const dropDetachedPartition = (pattern: string) => `
  CREATE OR REPLACE FUNCTION delivery.drop_detached_partition()
    RETURNS text LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp SET lock_timeout = '5s' AS $$
    DECLARE
      detached text;
    BEGIN
      SELECT c.relname INTO detached FROM pg_class c
       WHERE c.relnamespace = 'delivery'::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
         AND c.relname ~ '${pattern}'
       ORDER BY c.relname LIMIT 1;
      IF detached IS NULL THEN
        RETURN NULL;
      END IF;
      EXECUTE format('DROP TABLE delivery.%I', detached);
      RETURN detached;
    END $$`;
const DETACHED_BEFORE = '^webhook_(delivery|log)_p[0-9]{8}$';
const DETACHED_AFTER = '^webhook_(delivery|log|delivery_outcome)_p[0-9]{8}$';

/**
 * A delivery's outcome, in a narrow table of its own (issue #31, a recover's cost to other webhooks):
 * `webhook_delivery_outcome` holds, per delivery whose latest log entry is not its first attempt delivered,
 * whether it is `recoverable` (that entry is `failed` or `skipped`), that entry's time (`outcome_at`: an entry
 * written out of order never overrides a newer one) and the recover that took its last manual attempt while that
 * attempt is not logged yet (`recover_id`, a partial index of its own). Until now these were columns of `webhook_delivery`, and a recovered delivery rewrote that wide
 * row (its body, five indexes) once for the recover's batch and once more for its log entry; here each is a write of
 * a row of six narrow columns. Partitioned by the delivery's `created_at` like the delivery, with the same days,
 * so retention drops it with its delivery. The partial index on `recoverable` serves a recover's count and batches.
 * webhook-config counts through a view of its own.
 */
export class DeliveryOutcome1763802800000 implements MigrationInterface {
  name = 'DeliveryOutcome1763802800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(`
      CREATE TABLE delivery.webhook_delivery_outcome (
        delivery_id uuid NOT NULL,
        created_at timestamptz NOT NULL,
        webhook_id uuid NOT NULL,
        recoverable boolean NOT NULL,
        outcome_at timestamptz NOT NULL,
        recover_id uuid,
        PRIMARY KEY (delivery_id, created_at)
      ) PARTITION BY RANGE (created_at)`);
    await queryRunner.query(
      `CREATE INDEX webhook_delivery_outcome_recoverable_idx
         ON delivery.webhook_delivery_outcome (webhook_id, created_at, delivery_id) WHERE recoverable`,
    );
    // A recover's attempts taken and not logged yet (the log writer clears the mark): what a process that takes a
    // recover over queues again, found without reading the rest of the recover's deliveries.
    await queryRunner.query(
      `CREATE INDEX webhook_delivery_outcome_taken_idx
         ON delivery.webhook_delivery_outcome (recover_id, created_at, delivery_id) WHERE recover_id IS NOT NULL`,
    );
    await queryRunner.query(dayPartitions(AFTER));
    await queryRunner.query(createDayPartitions(AFTER));
    await queryRunner.query(dropDetachedPartition(DETACHED_AFTER));
    // The same days as the deliveries' partitions.
    await queryRunner.query(`
      DO $$
      DECLARE
        p record;
        part text;
      BEGIN
        FOR p IN SELECT * FROM delivery.day_partitions() WHERE parent = 'webhook_delivery' LOOP
          part := 'webhook_delivery_outcome' || substring(p.name FROM '_p[0-9]{8}$');
          EXECUTE format('CREATE TABLE delivery.%I (LIKE delivery.webhook_delivery_outcome INCLUDING ALL)', part);
          EXECUTE format('ALTER TABLE delivery.webhook_delivery_outcome ATTACH PARTITION delivery.%I
                          FOR VALUES FROM (%L) TO (%L)', part, p.from_time, p.to_time);
        END LOOP;
      END $$`);
    await queryRunner.query(`
      INSERT INTO delivery.webhook_delivery_outcome (delivery_id, created_at, webhook_id, recoverable, outcome_at,
                                                     recover_id)
      SELECT d.id, d.created_at, d.webhook_id, d.recoverable, coalesce(d.outcome_at, d.created_at),
             CASE WHEN NOT EXISTS (SELECT 1 FROM delivery.webhook_log l
                                    WHERE l.delivery_id = d.id AND l.manual AND l.attempt = d.last_manual_attempt)
                  THEN d.recover_id END
        FROM delivery.webhook_delivery d
       WHERE d.outcome_at IS NOT NULL OR d.recoverable OR d.recover_id IS NOT NULL`);
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.webhook_delivery_outcome TO ${DISPATCHER}`,
    );

    // CREATE OR REPLACE cannot drop a column of a view.
    await queryRunner.query(`DROP VIEW delivery.webhook_delivery_for_webhook_config`);
    await queryRunner.query(`
      CREATE VIEW delivery.webhook_delivery_for_webhook_config AS
        SELECT id, webhook_id, created_at FROM delivery.webhook_delivery`);
    await queryRunner.query(
      `COMMENT ON VIEW delivery.webhook_delivery_for_webhook_config IS ` +
        `'webhook-config: whether a delivery is still kept (WEBHOOK_LOG_RETENTION), before it asks for a resend of it.'`,
    );
    await queryRunner.query(`GRANT SELECT ON delivery.webhook_delivery_for_webhook_config TO ${CONFIG}`);
    await queryRunner.query(`
      CREATE VIEW delivery.webhook_recoverable_for_webhook_config AS
        SELECT webhook_id, created_at FROM delivery.webhook_delivery_outcome WHERE recoverable`);
    await queryRunner.query(
      `COMMENT ON VIEW delivery.webhook_recoverable_for_webhook_config IS ` +
        `'webhook-config: the deliveries a recover sends (their latest outcome failed or skipped), to count them.'`,
    );
    await queryRunner.query(`GRANT SELECT ON delivery.webhook_recoverable_for_webhook_config TO ${CONFIG}`);

    await queryRunner.query(`DROP INDEX delivery.webhook_delivery_recoverable_idx`);
    await queryRunner.query(`
      ALTER TABLE delivery.webhook_delivery DROP COLUMN recoverable, DROP COLUMN outcome_at, DROP COLUMN recover_id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE delivery.webhook_delivery
        ADD COLUMN recoverable boolean NOT NULL DEFAULT false,
        ADD COLUMN outcome_at timestamptz,
        ADD COLUMN recover_id uuid`);
    await queryRunner.query(`
      UPDATE delivery.webhook_delivery d SET recoverable = o.recoverable, outcome_at = o.outcome_at,
             recover_id = o.recover_id
        FROM delivery.webhook_delivery_outcome o WHERE o.delivery_id = d.id AND o.created_at = d.created_at`);
    await queryRunner.query(
      `CREATE INDEX webhook_delivery_recoverable_idx ON delivery.webhook_delivery (webhook_id, created_at, id)
        WHERE recoverable`,
    );
    await queryRunner.query(`DROP VIEW delivery.webhook_recoverable_for_webhook_config`);
    await queryRunner.query(`DROP VIEW delivery.webhook_delivery_for_webhook_config`);
    await queryRunner.query(`
      CREATE VIEW delivery.webhook_delivery_for_webhook_config AS
        SELECT id, webhook_id, created_at, recoverable FROM delivery.webhook_delivery`);
    await queryRunner.query(`GRANT SELECT ON delivery.webhook_delivery_for_webhook_config TO ${CONFIG}`);
    await queryRunner.query(dropDetachedPartition(DETACHED_BEFORE));
    await queryRunner.query(createDayPartitions(BEFORE));
    await queryRunner.query(dayPartitions(BEFORE));
    await queryRunner.query(`DROP TABLE delivery.webhook_delivery_outcome`);
  }
}
