import { Module } from '@nestjs/common';
import { OutboxMetrics } from './outbox.metrics.js';
import { OutboxRelay } from './outbox.relay.js';
import { OutboxWriter } from './outbox.writer.js';
import { UnitOfWork } from './unit-of-work.js';

@Module({
  providers: [OutboxWriter, OutboxRelay, OutboxMetrics, UnitOfWork],
  exports: [UnitOfWork, OutboxWriter],
})
export class OutboxModule {}
