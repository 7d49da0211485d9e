import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { DeliveryPublisher } from '../delivery/delivery.publisher.js';
import { DispatcherMetrics } from '../metrics/dispatcher.metrics.js';
import { WebhookRepository } from '../webhook/webhook.repository.js';
import { RecoverRepository, type RecoverRow, type TakenAttempt } from './recover.repository.js';

/** How often each process looks for a recover to work on and moves its own on. */
export const RECOVER_TICK_MS = 200;
/** A recover whose process stops renewing this long is taken over by another. */
export const RECOVER_LEASE_MS = 30_000;
/** Recovers one process works on at once (more wait for a process, or for one of these to end). */
const RECOVERS_PER_PROCESS = 4;
/** Deliveries taken per statement. */
const BATCH = 1_000;
/** Deliveries of one recover queued and not yet attempted, at most: what keeps a million from flooding the broker. */
export const RECOVER_WINDOW = 2_000;
/** A rate-limited webhook's window: this many seconds of its limit (a recover never runs far ahead of its rate). */
const RATE_WINDOW_SECONDS = 10;
/** Deliveries queued per second beyond the process's rate: at most this many seconds of it saved up while idle. */
const BUDGET_SECONDS = 0.5;
/**
 * After a recover is claimed, the process's rate grows from a tenth to all of it over this long: its first attempts
 * open the connections to the merchant's server and warm the code up, and at full rate at once they held other
 * webhooks' deliveries up for a quarter of a second.
 */
const RAMP_MS = 5_000;
/** Queued deliveries whose count has not moved this long are looked for and queued again (lost or parked messages). */
export const RECOVER_STALL_MS = 60_000;
/** A recover whose last deliveries are not attempted this long after it queued them all is finished all the same. */
const GIVE_UP_MS = 5 * 60_000;

/**
 * Recovers as jobs (CONTRACT §5, Recover): each dispatcher process takes up to RECOVERS_PER_PROCESS running recovers
 * (a lease in delivery.webhook_recover, renewed every tick) and feeds each one's deliveries to the recover lane
 * (`dispatcher.deliveries.recover`) at the pace they are attempted: at most a window of them queued and not yet
 * attempted, so a million wait in the database, cost nothing while they wait, and never stand before other webhooks'
 * deliveries. Its place is in the database, so a recover survives its process: another takes it over after the lease
 * and queues again what was taken and never attempted (an attempt checks its log first, so nothing attempted is sent
 * twice). A recover stops when its webhook is disabled or deleted (and its deliveries still queued are not made:
 * DeliveryGate), and finishes once every delivery it queued was attempted. Together a process's recovers queue at
 * most DISPATCHER_RECOVER_MAX_PER_SECOND deliveries a second (a budget refilled every tick, shared in turn): a
 * recover takes a share of the machine, and other webhooks' deliveries keep their latency beside it.
 */
@Injectable()
export class RecoverJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RecoverJob.name);
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly recovers = new Map<string, RecoverRow>();
  /** When each recover's unsent deliveries were last queued again. */
  private readonly requeuedAt = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** Deliveries this process's recovers may still queue now, and when it was last refilled. */
  private budget = 0;
  private refilledAt = Date.now();
  /** When this process last claimed a recover (its rate ramps up from then). */
  private claimedAt = 0;

  constructor(
    private readonly repository: RecoverRepository,
    private readonly webhooks: WebhookRepository,
    private readonly publisher: DeliveryPublisher,
    private readonly metrics: DispatcherMetrics,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.tick()
        .catch((error: Error) => this.logger.error({ msg: `recover jobs: ${error.message}` }))
        .finally(() => (this.running = undefined));
    }, RECOVER_TICK_MS);
    this.timer.unref();
  }

  /** Stops taking work and gives the leases up, so that another process carries on at once. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    await Promise.allSettled([...this.recovers.keys()].map((id) => this.repository.release(id, this.owner)));
    this.recovers.clear();
  }

  /** One round: claim a recover if there is room, then move each of this process's on. */
  async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.recovers.size < RECOVERS_PER_PROCESS) {
      const claimed = await this.repository.claim(this.owner, RECOVER_LEASE_MS);
      if (claimed) {
        this.recovers.set(claimed.id, claimed);
        this.claimedAt = Date.now();
        // Taken over from a process that stopped: what it took and did not get attempted is queued again.
        if (claimed.previousOwner !== null) this.requeuedAt.set(claimed.id, 0);
        this.logger.log({
          msg: `recover ${claimed.id} of webhook ${claimed.webhookId}: ${claimed.previousOwner ? 'taken over' : 'started'} (${claimed.sent} of ${claimed.total} sent)`,
          webhookId: claimed.webhookId,
          merchantId: claimed.merchantId,
        });
      }
    }
    const now = Date.now();
    const ramp = Math.min(1, 0.1 + (now - this.claimedAt) / RAMP_MS);
    const perSecond = this.config.recoverMaxPerSecond * ramp;
    this.budget = Math.min(perSecond * BUDGET_SECONDS, this.budget + ((now - this.refilledAt) * perSecond) / 1_000);
    this.refilledAt = now;
    await Promise.all(
      [...this.recovers.keys()].map((id) =>
        this.step(id).catch((error: Error) => {
          // Its deliveries taken but perhaps not queued: queued again (checked against the log) at the next step.
          this.requeuedAt.set(id, 0);
          this.logger.warn({ msg: `recover ${id}: ${error.message}; trying again` });
        }),
      ),
    );
  }

  private async step(id: string): Promise<void> {
    const recover = await this.repository.renew(id, this.owner, RECOVER_LEASE_MS);
    if (!recover) return this.forget(id); // cancelled, or taken over after this process stalled
    this.recovers.set(id, recover);
    const webhook = await this.webhooks.findById(recover.webhookId);
    if (!webhook || !webhook.enabled) {
      await this.repository.cancel(recover.webhookId, recover.id, 'disabled');
      this.logger.log({
        msg: `recover ${id} cancelled: webhook ${recover.webhookId} ${webhook ? 'was disabled' : 'was deleted'} (${recover.sent} of ${recover.total} sent)`,
        webhookId: recover.webhookId,
        merchantId: recover.merchantId,
      });
      return this.forget(id);
    }

    const outstanding = recover.queued - recover.sent;
    const idleMs = Date.now() - recover.progressAt.getTime();
    const requeuedAt = this.requeuedAt.get(id);
    if (
      requeuedAt === 0 ||
      (outstanding > 0 && idleMs > RECOVER_STALL_MS && Date.now() - (requeuedAt ?? 0) > RECOVER_STALL_MS)
    ) {
      const unsent = await this.repository.unsent(recover);
      this.requeuedAt.set(id, Date.now());
      await this.queue(recover, unsent, true);
      if (unsent.length > 0) {
        this.logger.warn({
          msg: `recover ${id}: ${unsent.length} deliveries taken and not attempted were queued again`,
          webhookId: recover.webhookId,
        });
      }
    }

    if (recover.queuedAll) {
      if (recover.queued - recover.sent <= 0 || idleMs > GIVE_UP_MS) {
        if (await this.repository.finish(id, this.owner)) {
          this.logger.log({
            msg: `recover ${id} of webhook ${recover.webhookId} finished: ${recover.sent} of ${recover.total} sent`,
            webhookId: recover.webhookId,
            merchantId: recover.merchantId,
          });
        }
        this.forget(id);
      }
      return;
    }

    const window =
      webhook.maxPerSecond === null ? RECOVER_WINDOW : Math.max(1, webhook.maxPerSecond * RATE_WINDOW_SECONDS);
    let room = window - (recover.queued - recover.sent);
    while (room > 0 && !recover.queuedAll && !this.stopped) {
      // The process's budget, taken before the statement (the recovers of a tick run side by side).
      const limit = Math.floor(Math.min(room, BATCH, this.budget));
      if (limit < 1) break;
      this.budget -= limit;
      const batch = await this.repository.takeBatch(recover, this.owner, limit);
      if (!batch) return this.forget(id);
      this.budget += limit - batch.taken.length;
      await this.queue(recover, batch.taken, false);
      room -= batch.taken.length;
      if (batch.read === 0) break;
    }
  }

  /**
   * Queues the attempts to the recover lane, confirmed, each with its snapshot when the batch read it. `again`: taken
   * before and found not attempted; each such attempt first checks that it is not logged (as a stand-in does): its
   * first copy may still be on its way.
   */
  private async queue(recover: RecoverRow, attempts: TakenAttempt[], again: boolean): Promise<void> {
    await Promise.all(
      attempts.map(({ deliveryId, attempt, snapshot }) =>
        this.publisher.publish(
          { v: 1, deliveryId, manual: true, recoverId: recover.id, ...(snapshot ? { snapshot } : {}) },
          attempt,
          { to: 'recover', guard: again },
        ),
      ),
    );
    this.metrics.scheduled.inc({ decision: 'recovered' }, attempts.length);
  }

  private forget(id: string): void {
    this.recovers.delete(id);
    this.requeuedAt.delete(id);
  }
}
