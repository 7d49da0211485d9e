import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Keeps a delivery's rendered body out of line (TOAST, uncompressed), so that updating the delivery's state
 * after each attempt rewrites a small row instead of copying the body each time.
 */
export class DeliveryBodyOutOfLine1763800500000 implements MigrationInterface {
  name = 'DeliveryBodyOutOfLine1763800500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_delivery ALTER COLUMN body SET STORAGE EXTERNAL`);
    await queryRunner.query(`ALTER TABLE webhook_delivery SET (toast_tuple_target = 128, fillfactor = 80)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhook_delivery RESET (toast_tuple_target, fillfactor)`);
    await queryRunner.query(`ALTER TABLE webhook_delivery ALTER COLUMN body SET STORAGE EXTENDED`);
  }
}
