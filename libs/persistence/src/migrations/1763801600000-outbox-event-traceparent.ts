import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C `traceparent` of the request that wrote an event (null when tracing is off or for older events): the relay
 * publishes it with the event, so the trace goes on through the broker to the fan-out and every delivery attempt. A
 * nullable column without a default is added without rewriting the table.
 */
export class OutboxEventTraceparent1763801600000 implements MigrationInterface {
  name = 'OutboxEventTraceparent1763801600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payments.outbox_event ADD COLUMN traceparent text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payments.outbox_event DROP COLUMN traceparent`);
  }
}
