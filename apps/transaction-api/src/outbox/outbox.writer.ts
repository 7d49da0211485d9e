import { Injectable } from '@nestjs/common';
import type { PlatformEvent } from '#messaging';
import type { EntityManager } from 'typeorm';

/**
 * Appends events to the outbox inside the caller's database transaction, so an event exists exactly when the
 * change it describes was committed. The insert trigger NOTIFYs the relay at commit.
 */
@Injectable()
export class OutboxWriter {
  async append(manager: EntityManager, event: PlatformEvent): Promise<void> {
    await manager.query(`INSERT INTO outbox_event (id, type, subject_id, payload) VALUES ($1, $2, $3, $4)`, [
      event.id,
      event.type,
      event.subjectId,
      JSON.stringify(event),
    ]);
  }
}
