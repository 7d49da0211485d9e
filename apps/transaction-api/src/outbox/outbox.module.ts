import { Module } from '@nestjs/common';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxWriter } from './outbox.writer.js';
import { UnitOfWork } from './unit-of-work.js';

@Module({ providers: [OutboxWriter, OutboxRelay, UnitOfWork], exports: [UnitOfWork, OutboxRelay] })
export class OutboxModule {}
