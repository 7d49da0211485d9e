import type { MigrationInterface, QueryRunner } from 'typeorm';

const DISPATCHER = 'webhook_dispatcher';
const CONFIG = 'webhook_config';

/** Days of partitions created around the migration: the default retention back (rows may be that old), a week ahead. */
const DAYS_BACK = 31;
const DAYS_AHEAD = 7;

const LOG_VIEW = {
  name: 'delivery.webhook_log_for_webhook_config',
  columns:
    'id, delivery_id, webhook_id, attempt, event_type, event_id, request, status, duration_ms, error, ' +
    'response_excerpt, created_at, next_attempt_at',
  comment: "webhook-config: a webhook's delivery log, as the merchant backend shows it.",
};
const DELIVERY_VIEW = {
  name: 'delivery.webhook_delivery_for_webhook_config',
  columns: 'id, webhook_id, created_at',
  comment:
    'webhook-config: whether a delivery is still kept (WEBHOOK_LOG_RETENTION), before it asks for a resend of it.',
};

/** The columns both layouts share, in the order of the tables' definitions. */
const DELIVERY_COLUMNS =
  'id, webhook_id, merchant_id, event_id, event_type, subject, url, content_type, version, retry_on_error, body, ' +
  'manual_attempts, last_manual_attempt, created_at';
const LOG_COLUMNS =
  'id, delivery_id, webhook_id, attempt, event_type, event_id, request, status, duration_ms, error, ' +
  'response_excerpt, manual, created_at, next_attempt_at';

const deliveryTable = (name: string, partitioned: boolean) => `
  CREATE TABLE delivery.${name} (
    id uuid NOT NULL,
    webhook_id uuid NOT NULL,
    merchant_id uuid NOT NULL,
    event_id uuid NOT NULL,
    event_type text NOT NULL,
    subject jsonb NOT NULL,
    url text NOT NULL,
    content_type text NOT NULL,
    version text NOT NULL,
    retry_on_error boolean NOT NULL,
    body bytea NOT NULL,
    manual_attempts int NOT NULL DEFAULT 0,
    last_manual_attempt int NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
  )${partitioned ? ' PARTITION BY RANGE (created_at)' : ''}`;

const logTable = (name: string, partitioned: boolean) => `
  CREATE TABLE delivery.${name} (
    id uuid NOT NULL,
    delivery_id uuid NOT NULL,
    webhook_id uuid NOT NULL,
    attempt integer NOT NULL CONSTRAINT webhook_log_attempt_check CHECK (attempt >= 1),
    event_type text NOT NULL,
    event_id uuid NOT NULL,
    request jsonb NOT NULL,
    status integer NOT NULL,
    duration_ms integer NOT NULL,
    error text,
    response_excerpt text,
    manual boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    next_attempt_at timestamptz
  )${partitioned ? ' PARTITION BY RANGE (created_at)' : ''}`;

/**
 * The partition functions. The dispatcher's role owns no table and may create none, so it maintains the partitions
 * through these, which run with their owner's (the migrating login's) rights and do exactly this much: create the
 * day partitions of a range of days, detach one partition that ended before a cutoff (never today's or a later one),
 * drop one detached partition. A SECURITY DEFINER function names every object with its schema and searches only
 * pg_catalog, so nothing the caller creates can stand in for what it uses.
 */
const FUNCTIONS = [
  // Every day partition of the two tables and its range (from the catalog).
  `CREATE FUNCTION delivery.day_partitions()
     RETURNS TABLE (parent text, name text, from_time timestamptz, to_time timestamptz)
     LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
       SELECT p.relname::text, c.relname::text,
              substring(b.bound FROM 'FROM \\(''([^'']+)''\\)')::timestamptz,
              substring(b.bound FROM 'TO \\(''([^'']+)''\\)')::timestamptz
         FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
         JOIN pg_class p ON p.oid = i.inhparent
        CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
        WHERE p.relnamespace = 'delivery'::regnamespace AND p.relname IN ('webhook_delivery', 'webhook_log')
     $$`,
  // Creates the missing day partitions (UTC days) of both tables from first_day to last_day; returns their names.
  // CREATE TABLE … PARTITION OF would lock the parent against every read and write; a table made LIKE the parent
  // and then attached takes only a lock that lets them go on (no default partition: nothing to scan).
  `CREATE FUNCTION delivery.create_day_partitions(first_day date, last_day date)
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
         FOREACH parent IN ARRAY ARRAY['webhook_delivery', 'webhook_log'] LOOP
           part := parent || '_p' || to_char(day, 'YYYYMMDD');
           CONTINUE WHEN to_regclass('delivery.' || part) IS NOT NULL;
           EXECUTE format('CREATE TABLE delivery.%I (LIKE delivery.%I INCLUDING ALL)', part, parent);
           EXECUTE format('ALTER TABLE delivery.%I ATTACH PARTITION delivery.%I FOR VALUES FROM (%L) TO (%L)',
                          parent, part, day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
           RETURN NEXT part;
         END LOOP;
       END LOOP;
     END $$`,
  // Detaches the oldest partition (of either table) that ended at or before the cutoff — never one that ends after
  // today's start (UTC) — and returns its name; NULL when there is none. A plain DETACH (CONCURRENTLY cannot run in a
  // function) holds the parent's exclusive lock for a catalog change only; it gives up after 500 ms rather than
  // queue the table's traffic behind a long transaction, and is tried again at the next run.
  `CREATE FUNCTION delivery.detach_expired_partition(cutoff timestamptz)
     RETURNS text LANGUAGE plpgsql SECURITY DEFINER
     SET search_path = pg_catalog, pg_temp SET lock_timeout = '500ms' AS $$
     DECLARE
       expired record;
     BEGIN
       SELECT p.parent, p.name INTO expired FROM delivery.day_partitions() p
        WHERE p.to_time <= least(cutoff, date_trunc('day', now(), 'UTC'))
        ORDER BY p.to_time, p.parent LIMIT 1;
       IF NOT FOUND THEN
         RETURN NULL;
       END IF;
       EXECUTE format('ALTER TABLE delivery.%I DETACH PARTITION delivery.%I', expired.parent, expired.name);
       RETURN expired.name;
     END $$`,
  // Drops one detached day partition and returns its name; NULL when there is none. Its files are removed here, in a
  // transaction of its own that locks no table anyone uses.
  `CREATE FUNCTION delivery.drop_detached_partition()
     RETURNS text LANGUAGE plpgsql SECURITY DEFINER
     SET search_path = pg_catalog, pg_temp SET lock_timeout = '5s' AS $$
     DECLARE
       detached text;
     BEGIN
       SELECT c.relname INTO detached FROM pg_class c
        WHERE c.relnamespace = 'delivery'::regnamespace AND c.relkind = 'r' AND NOT c.relispartition
          AND c.relname ~ '^webhook_(delivery|log)_p[0-9]{8}$'
        ORDER BY c.relname LIMIT 1;
       IF detached IS NULL THEN
         RETURN NULL;
       END IF;
       EXECUTE format('DROP TABLE delivery.%I', detached);
       RETURN detached;
     END $$`,
];

/** Each function and who may run it (nobody else: EXECUTE is revoked from PUBLIC). */
const FUNCTION_GRANTS: Array<{ signature: string; roles: string[] }> = [
  { signature: 'delivery.day_partitions()', roles: [DISPATCHER] },
  { signature: 'delivery.create_day_partitions(date, date)', roles: [DISPATCHER] },
  { signature: 'delivery.detach_expired_partition(timestamptz)', roles: [DISPATCHER] },
  { signature: 'delivery.drop_detached_partition()', roles: [DISPATCHER] },
];

/**
 * The delivery tables, partitioned by day (UTC) on `created_at`, so that what is older than WEBHOOK_LOG_RETENTION is
 * removed a whole partition at a time — a detach and a drop, never a DELETE of millions of rows (whose dead tuples
 * and index bloat would stay behind). The dispatcher's PartitionMaintenance creates the days ahead and removes the
 * expired ones through the functions above.
 *
 * - Keys include the partition key, as PostgreSQL requires: (id, created_at), and one delivery per (webhook, event)
 *   as (webhook_id, event_id, created_at) — the fan-out sets a delivery's created_at from its event, so a second
 *   fan-out of the event meets the first's row (apps/webhook-dispatcher fan-out/delivery.repository.ts).
 * - No foreign key from the log to its delivery: the two are dropped a day at a time each, and a delivery's last
 *   log entries are days younger than it. The dispatcher deletes a deleted webhook's log itself.
 * - No default partition: it would make every new partition scan it, and a row for a day with no partition fails
 *   loudly instead of piling up there (partitions are created a week ahead, and an alert watches them).
 * - webhook-config reads whether a delivery is still kept through a new view (before it asks for a resend).
 *
 * Existing rows are copied into day partitions (one per day they cover, besides the default retention's 31 days back
 * and a week ahead), under the tables' exclusive lock: on a large log, run it at a quiet time (docs/operations.md).
 */
export class DeliveryPartitions1763801700000 implements MigrationInterface {
  name = 'DeliveryPartitions1763801700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(`DROP VIEW ${LOG_VIEW.name}`);
    await queryRunner.query(`ALTER TABLE delivery.webhook_log RENAME TO webhook_log_unpartitioned`);
    await queryRunner.query(`ALTER TABLE delivery.webhook_delivery RENAME TO webhook_delivery_unpartitioned`);

    // The new tables, without their keys and indexes yet: they are built once the rows are in.
    await queryRunner.query(deliveryTable('webhook_delivery', true));
    await queryRunner.query(logTable('webhook_log', true));
    for (const statement of FUNCTIONS) await queryRunner.query(statement);

    const days: Array<{ day: string }> = await queryRunner.query(
      `SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS day FROM (
         SELECT DISTINCT date_trunc('day', created_at, 'UTC') AS day FROM delivery.webhook_delivery_unpartitioned
         UNION
         SELECT DISTINCT date_trunc('day', created_at, 'UTC') FROM delivery.webhook_log_unpartitioned
         UNION
         SELECT generate_series(date_trunc('day', now(), 'UTC') - $1 * interval '1 day',
                                date_trunc('day', now(), 'UTC') + $2 * interval '1 day', interval '1 day')
       ) days ORDER BY 1`,
      [DAYS_BACK, DAYS_AHEAD],
    );
    for (const { day } of days) {
      await queryRunner.query(`SELECT delivery.create_day_partitions($1::date, $1::date)`, [day]);
    }

    await queryRunner.query(
      `INSERT INTO delivery.webhook_delivery (${DELIVERY_COLUMNS})
       SELECT ${DELIVERY_COLUMNS} FROM delivery.webhook_delivery_unpartitioned`,
    );
    await queryRunner.query(
      `INSERT INTO delivery.webhook_log (${LOG_COLUMNS}) SELECT ${LOG_COLUMNS} FROM delivery.webhook_log_unpartitioned`,
    );
    await queryRunner.query(`DROP TABLE delivery.webhook_log_unpartitioned`);
    await queryRunner.query(`DROP TABLE delivery.webhook_delivery_unpartitioned`);

    // Built on every partition, and on every partition created later (create_day_partitions copies them).
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_delivery
         ADD CONSTRAINT webhook_delivery_pkey PRIMARY KEY (id, created_at),
         ADD CONSTRAINT webhook_delivery_webhook_id_event_id_created_at_key UNIQUE (webhook_id, event_id, created_at)`,
    );
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_log ADD CONSTRAINT webhook_log_pkey PRIMARY KEY (id, created_at)`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_log_webhook_idx ON delivery.webhook_log (webhook_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX webhook_log_delivery_idx ON delivery.webhook_log (delivery_id, attempt)`);
    await queryRunner.query(
      `COMMENT ON TABLE delivery.webhook_delivery IS 'One per (event, webhook) and per test: the body as sent. ` +
        `Partitioned by day on created_at; days older than WEBHOOK_LOG_RETENTION are dropped by the dispatcher.'`,
    );
    await queryRunner.query(
      `COMMENT ON TABLE delivery.webhook_log IS 'One row per attempt (and per delivery not attempted). ` +
        `Partitioned by day on created_at; days older than WEBHOOK_LOG_RETENTION are dropped by the dispatcher.'`,
    );
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.webhook_delivery, delivery.webhook_log TO ${DISPATCHER}`,
    );

    for (const { signature, roles } of FUNCTION_GRANTS) {
      await queryRunner.query(`REVOKE ALL ON FUNCTION ${signature} FROM PUBLIC`);
      await queryRunner.query(`GRANT EXECUTE ON FUNCTION ${signature} TO ${roles.join(', ')}`);
    }

    await this.createView(queryRunner, LOG_VIEW, 'delivery.webhook_log');
    await this.createView(queryRunner, DELIVERY_VIEW, 'delivery.webhook_delivery');
  }

  /**
   * Back to one table each, with the foreign key from the log to its delivery: log entries whose delivery is gone
   * (removed with its day, or with its webhook) cannot come along, and of two deliveries of one (webhook, event) —
   * possible only when one event was fanned out twice at once, more than an hour after it happened — the first.
   * Detached partitions not dropped yet go too.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(`DROP VIEW ${DELIVERY_VIEW.name}`);
    await queryRunner.query(`DROP VIEW ${LOG_VIEW.name}`);

    await queryRunner.query(deliveryTable('webhook_delivery_unpartitioned', false));
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_delivery_unpartitioned
         ADD CONSTRAINT webhook_delivery_unpartitioned_pkey PRIMARY KEY (id),
         ADD CONSTRAINT webhook_delivery_unpartitioned_key UNIQUE (webhook_id, event_id)`,
    );
    await queryRunner.query(logTable('webhook_log_unpartitioned', false));
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_log_unpartitioned ADD CONSTRAINT webhook_log_unpartitioned_pkey PRIMARY KEY (id)`,
    );
    await queryRunner.query(
      `INSERT INTO delivery.webhook_delivery_unpartitioned (${DELIVERY_COLUMNS})
       SELECT ${DELIVERY_COLUMNS} FROM delivery.webhook_delivery ORDER BY created_at, id
       ON CONFLICT DO NOTHING`,
    );
    await queryRunner.query(
      `INSERT INTO delivery.webhook_log_unpartitioned (${LOG_COLUMNS})
       SELECT ${LOG_COLUMNS} FROM delivery.webhook_log l
        WHERE EXISTS (SELECT 1 FROM delivery.webhook_delivery_unpartitioned d WHERE d.id = l.delivery_id)
       ON CONFLICT DO NOTHING`,
    );

    await queryRunner.query(`DROP TABLE delivery.webhook_log, delivery.webhook_delivery`);
    for (;;) {
      const [{ dropped }] = await queryRunner.query(`SELECT delivery.drop_detached_partition() AS dropped`);
      if (dropped === null) break;
    }
    for (const { signature } of [...FUNCTION_GRANTS].reverse()) await queryRunner.query(`DROP FUNCTION ${signature}`);

    await queryRunner.query(`ALTER TABLE delivery.webhook_delivery_unpartitioned RENAME TO webhook_delivery`);
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_delivery RENAME CONSTRAINT webhook_delivery_unpartitioned_pkey TO webhook_delivery_pkey`,
    );
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_delivery
         RENAME CONSTRAINT webhook_delivery_unpartitioned_key TO webhook_delivery_webhook_id_event_id_key`,
    );
    await queryRunner.query(`ALTER TABLE delivery.webhook_log_unpartitioned RENAME TO webhook_log`);
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_log RENAME CONSTRAINT webhook_log_unpartitioned_pkey TO webhook_log_pkey`,
    );
    await queryRunner.query(
      `ALTER TABLE delivery.webhook_log ADD CONSTRAINT webhook_log_delivery_id_fkey
         FOREIGN KEY (delivery_id) REFERENCES delivery.webhook_delivery(id) ON DELETE CASCADE`,
    );
    await queryRunner.query(
      `CREATE INDEX webhook_log_webhook_idx ON delivery.webhook_log (webhook_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX webhook_log_delivery_idx ON delivery.webhook_log (delivery_id, attempt)`);
    await queryRunner.query(
      `GRANT SELECT, INSERT, UPDATE, DELETE ON delivery.webhook_delivery, delivery.webhook_log TO ${DISPATCHER}`,
    );
    await this.createView(queryRunner, LOG_VIEW, 'delivery.webhook_log');
  }

  private async createView(
    queryRunner: QueryRunner,
    view: { name: string; columns: string; comment: string },
    from: string,
  ): Promise<void> {
    await queryRunner.query(`CREATE VIEW ${view.name} AS SELECT ${view.columns} FROM ${from}`);
    await queryRunner.query(`COMMENT ON VIEW ${view.name} IS '${view.comment.replace(/'/g, "''")}'`);
    await queryRunner.query(`GRANT SELECT ON ${view.name} TO ${CONFIG}`);
  }
}
