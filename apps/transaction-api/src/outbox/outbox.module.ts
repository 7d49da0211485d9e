import { Module } from '@nestjs/common';
import { pgPoolProvider } from '../common/pg-pool.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxWriter } from './outbox.writer.js';
import { UnitOfWork } from './unit-of-work.js';

@Module({ providers: [pgPoolProvider, OutboxWriter, OutboxRelay, UnitOfWork], exports: [UnitOfWork, OutboxWriter] })
export class OutboxModule {}
