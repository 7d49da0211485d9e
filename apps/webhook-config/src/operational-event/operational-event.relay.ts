import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AmqpClient, publishPlatformEvent } from '#messaging';
import { OutboxLoop, retryDelayMs } from '../common/outbox.loop.js';
import { OperationalEventOutbox } from './operational-event.outbox.js';

/** How often finished recovers are looked for (their `webhook.recovered`). */
const RECOVERS_EVERY_MS = 2_000;
/** How often published events past the retention are deleted. */
const CLEAN_EVERY_MS = 60 * 60_000;
/** Published events are kept this long (to look into). */
const KEEP_DAYS = 7;
const CLAIM_AT_MOST = 50;
/** A claim lasts this long: far longer than a publish, which gives up on its own. */
const LEASE_MS = 60_000;

/** The longest wait before the next try of an event whose publish failed (1 s, doubling). */
const RETRY_AT_MOST_MS = 60_000;

/**
 * Publishes the operational events of the outbox (backend.operational_event) on `payments.events`, routing key the
 * event type, message id the event id — the way transaction-api's relay publishes platform events, so that the
 * dispatcher's fan-out delivers them like any event (signed, logged, repeated). A row is marked published only once
 * the broker confirmed it; a failed publish (broker away) is tried again with backoff, and a relay that dies
 * mid-publish leaves its claim to run out: at-least-once, receivers deduplicate on `webhook-id` (one per event id and
 * webhook). Every process runs it; SKIP LOCKED gives each its own rows. It also writes the `webhook.recovered` of the
 * recovers the dispatcher finished (OperationalEventOutbox.recordFinishedRecovers).
 */
@Injectable()
export class OperationalEventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OperationalEventRelay.name);
  private readonly loop = new OutboxLoop(() => this.step(), {
    batch: CLAIM_AT_MOST,
    onError: (error) => {
      // Once per outage, not every second of it.
      if (this.unreadable) return;
      this.unreadable = true;
      this.logger.warn(`could not read the operational events to publish (tried again every second): ${error.message}`);
    },
  });
  private failing = false;
  private unreadable = false;
  private recoversAt = 0;
  private cleanedAt = 0;

  constructor(
    private readonly outbox: OperationalEventOutbox,
    private readonly amqp: AmqpClient,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start();
  }

  /** Looks at the outbox now (an event was just written). */
  nudge(): void {
    this.loop.nudge();
  }

  private async step(): Promise<number> {
    await this.housekeeping();
    const claimed = await this.publishDue();
    if (this.unreadable) {
      this.unreadable = false;
      this.logger.log('reading the operational events works again');
    }
    return claimed;
  }

  private async housekeeping(): Promise<void> {
    const now = Date.now();
    if (now - this.recoversAt >= RECOVERS_EVERY_MS) {
      this.recoversAt = now;
      await this.outbox.recordFinishedRecovers(CLAIM_AT_MOST);
    }
    if (now - this.cleanedAt >= CLEAN_EVERY_MS) {
      this.cleanedAt = now;
      const deleted = await this.outbox.deletePublishedBefore(KEEP_DAYS);
      if (deleted > 0) this.logger.log(`deleted ${deleted} published operational events older than ${KEEP_DAYS} days`);
    }
  }

  /** Claims the due events and publishes them, one by one, each confirmed; how many it claimed. */
  async publishDue(): Promise<number> {
    const due = await this.outbox.claim(CLAIM_AT_MOST, LEASE_MS);
    for (const event of due) {
      if (this.loop.isStopping) break; // the lease runs out and another process (or the next start) publishes it
      try {
        await publishPlatformEvent(this.amqp, event.payload, Buffer.from(JSON.stringify(event.payload)), {
          messageId: event.payload.id,
          type: event.payload.type,
        });
      } catch (error) {
        const retryInMs = retryDelayMs(event.attempts, RETRY_AT_MOST_MS);
        if (!this.failing) {
          this.failing = true;
          this.logger.warn(
            `could not publish an operational event (try ${event.attempts}; again in ${Math.round(retryInMs / 1000)} s): ${(error as Error).message}`,
          );
        }
        await this.outbox.failed(event.id, (error as Error).message, retryInMs).catch(() => undefined);
        continue;
      }
      if (this.failing) {
        this.failing = false;
        this.logger.log('publishing operational events works again');
      }
      await this.outbox.published(event.id).catch((error: Error) =>
        // Published, but not marked: when the lease runs out it is published again (at-least-once).
        this.logger.warn(`an operational event was published but could not be marked: ${error.message}`),
      );
    }
    return due.length;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }
}
