import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The kinds a webhook's `events` may hold are the application's rule, not the database's (issue #33, one definition
 * each): they are defined once, in `#domain`'s event-kinds.ts, and webhook-config checks every write against that list
 * (the only writer of `backend.webhook`). The CHECK of Webhooks1763800100000 was a second, hand-written copy of the
 * list that a new kind would have had to change in a migration of its own. What stays here is what no list of kinds
 * decides: at least one event.
 */
export class WebhookEventsAppOwned1763803000000 implements MigrationInterface {
  name = 'WebhookEventsAppOwned1763803000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(`
      ALTER TABLE backend.webhook
        DROP CONSTRAINT webhook_events_check,
        ADD CONSTRAINT webhook_events_check CHECK (cardinality(events) >= 1)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The constraint as Webhooks1763800100000 made it (fails while a webhook selects a kind added since).
    await queryRunner.query(`SET LOCAL lock_timeout = '10s'`);
    await queryRunner.query(`
      ALTER TABLE backend.webhook
        DROP CONSTRAINT webhook_events_check,
        ADD CONSTRAINT webhook_events_check
          CHECK (cardinality(events) >= 1 AND events <@ ARRAY['transaction', 'subscription', 'payout'])`);
  }
}
