import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { RecoverRef } from './recover-ref.entity.js';

/**
 * A webhook's recovers as the dispatcher keeps them (its views): how many deliveries a recover would send, and the
 * progress of the latest. webhook-config writes none of them: it asks the dispatcher by command.
 */
@Injectable()
export class WebhookRecoverRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Runs `work` while holding the webhook's recover lock (a transaction-scoped advisory lock): two requests for the
   * same webhook's recover, in any webhook-config process, take turns.
   */
  locked<T>(webhookId: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`recover ${webhookId}`]);
      return work(manager);
    });
  }

  /**
   * How many of the webhook's deliveries of events since `since` a recover sends: those whose latest outcome is
   * failed or skipped (the dispatcher's `recoverable`, served by a partial index: a million count in well under 2 s).
   */
  async countRecoverable(manager: EntityManager, webhookId: string, since: Date): Promise<number> {
    const [{ count }]: Array<{ count: number }> = await manager.query(
      `SELECT count(*)::int AS count FROM delivery.webhook_recoverable_for_webhook_config
        WHERE webhook_id = $1 AND created_at >= $2`,
      [webhookId, since],
    );
    return count;
  }

  /** The webhook's latest recover (running or not). */
  latest(webhookId: string, manager: EntityManager = this.db.manager): Promise<RecoverRef | null> {
    return manager.getRepository(RecoverRef).findOne({ where: { webhookId }, order: { startedAt: 'DESC' } });
  }

  find(id: string, manager: EntityManager = this.db.manager): Promise<RecoverRef | null> {
    return manager.getRepository(RecoverRef).findOneBy({ id });
  }
}
