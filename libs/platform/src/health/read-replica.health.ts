import { Injectable, Optional } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { ReadReplica } from '../database/read-replica.js';

/**
 * A replica that hangs must not make the readiness answer late (an orchestrator's probe gives up after a second or
 * so, and would take the app out): after this long, the state known so far is reported.
 */
const WAIT_MS = 500;

/**
 * The read replica (DATABASE_READ_URL), probed now: `up` while reads go to it; `degraded` while they go to the
 * primary because it is `down` or `lagging` — the app still answers every read, so this never makes it not ready.
 */
@Injectable()
export class ReadReplicaHealthIndicator {
  constructor(
    private readonly indicator: HealthIndicatorService,
    @Optional() private readonly replica?: ReadReplica,
  ) {}

  /** Whether the app has a replica to report (DATABASE_READ_URL is set). */
  get configured(): boolean {
    return this.replica?.configured ?? false;
  }

  async isHealthy(key = 'databaseReplica') {
    const check = this.indicator.check(key);
    const { state, lagSeconds } = await this.replica!.check(WAIT_MS);
    const readsFrom = state === 'up' ? 'replica' : 'primary';
    return state === 'up'
      ? check.up({ state, lagSeconds, readsFrom })
      : check.degraded({ state, lagSeconds, readsFrom });
  }
}
