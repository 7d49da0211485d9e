import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { PlatformEvent } from '#messaging';
import type { DataSource, EntityManager } from 'typeorm';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxWriter } from './outbox.writer.js';

export interface UnitOfWorkContext {
  /** Runs queries inside the database transaction. */
  manager: EntityManager;
  /** Records an event in the outbox, inside the same database transaction. */
  emit: (event: PlatformEvent) => Promise<void>;
}

/**
 * One database transaction for a change and the events it causes: the change and its outbox rows commit together
 * or not at all. After a commit that emitted events the relay is woken at once.
 */
@Injectable()
export class UnitOfWork {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    private readonly relay: OutboxRelay,
  ) {}

  async run<T>(work: (context: UnitOfWorkContext) => Promise<T>): Promise<T> {
    let emitted = 0;
    const result = await this.dataSource.transaction(async (manager) =>
      work({
        manager,
        emit: async (event) => {
          emitted += 1;
          await this.outbox.append(manager, event);
        },
      }),
    );
    if (emitted > 0) this.relay.wake();
    return result;
  }
}
