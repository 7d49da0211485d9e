import { Injectable } from '@nestjs/common';
import { RecoverRepository, type RecoverState } from './recover.repository.js';

/** How long a recover's state is taken as read: a cancel stops its deliveries within this (plus the one in flight). */
const MAX_AGE_MS = 1_000;

/**
 * Whether a recover was cancelled, as each of its deliveries asks before its attempt (DeliveryGate): one read per
 * recover and second, however many of its deliveries pass, shared by the attempts asking at the same time.
 */
@Injectable()
export class RecoverStates {
  private readonly states = new Map<string, { state: Promise<RecoverState | undefined>; readAt: number }>();

  constructor(private readonly repository: RecoverRepository) {}

  /** Reads every recover's state again at its next use (a webhook changed: perhaps a recover of it was cancelled). */
  forget(): void {
    this.states.clear();
  }

  /** Cancelled, or gone (deleted with its webhook): its deliveries are not made. */
  async isCancelled(recoverId: string): Promise<boolean> {
    const now = Date.now();
    let entry = this.states.get(recoverId);
    if (!entry || now - entry.readAt > MAX_AGE_MS) {
      if (this.states.size > 1_000) this.states.clear(); // ended recovers are not asked about again
      entry = { state: this.repository.stateOf(recoverId), readAt: now };
      this.states.set(recoverId, entry);
      entry.state.catch(() => this.states.delete(recoverId));
    }
    const state = await entry.state;
    return state === 'cancelled' || state === undefined;
  }
}
