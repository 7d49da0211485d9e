import { Module } from '@nestjs/common';
import { OperationalEventOutbox } from './operational-event.outbox.js';
import { OperationalEventRelay } from './operational-event.relay.js';

/**
 * Operational events (issue #34): events about a merchant's webhooks, written to an outbox in the transaction of the
 * change (the notices' disable and failing notice, PATCH {enabled}) and published on `payments.events` by the relay.
 */
@Module({
  providers: [OperationalEventOutbox, OperationalEventRelay],
  exports: [OperationalEventOutbox, OperationalEventRelay],
})
export class OperationalEventModule {}
