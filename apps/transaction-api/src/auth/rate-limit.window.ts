/** The window is this many buckets of {@link BUCKET_MS}: one second. */
export const BUCKETS = 10;
export const BUCKET_MS = 100;

/** Beyond this many ids at once, new ids share one count (a flood of distinct client addresses stays bounded). */
export const MAX_IDS = 100_000;
export const OVERFLOW_ID = 'overflow';

/**
 * One id's counts in the last {@link BUCKETS} buckets: this process's and the other processes' (as published), per
 * bucket and summed over the window (kept as the buckets change, so that a request reads four numbers).
 */
class Counts {
  /** Bucket number (time / BUCKET_MS) of the newest bucket; bucket n is at index n % BUCKETS. */
  bucket: number;
  readonly accepted = new Uint32Array(BUCKETS);
  readonly attempted = new Uint32Array(BUCKETS);
  readonly othersAccepted = new Uint32Array(BUCKETS);
  readonly othersAttempted = new Uint32Array(BUCKETS);
  acceptedInWindow = 0;
  attemptedInWindow = 0;
  othersAcceptedInWindow = 0;
  othersAttemptedInWindow = 0;

  constructor(bucket: number) {
    this.bucket = bucket;
  }

  /** Moves the window to `bucket`, zeroing the buckets it passes. */
  advance(bucket: number): void {
    const steps = Math.min(bucket - this.bucket, BUCKETS);
    for (let i = 1; i <= steps; i += 1) {
      const index = (this.bucket + i) % BUCKETS;
      this.acceptedInWindow -= this.accepted[index];
      this.attemptedInWindow -= this.attempted[index];
      this.othersAcceptedInWindow -= this.othersAccepted[index];
      this.othersAttemptedInWindow -= this.othersAttempted[index];
      this.accepted[index] = 0;
      this.attempted[index] = 0;
      this.othersAccepted[index] = 0;
      this.othersAttempted[index] = 0;
    }
    if (bucket > this.bucket) this.bucket = bucket;
  }

  /** Counts an attempt of this process (accepted or not) in the newest bucket. */
  countAttempt(): void {
    this.attempted[this.bucket % BUCKETS] += 1;
    this.attemptedInWindow += 1;
  }

  /** Counts an attempt of this process as accepted, in the newest bucket. */
  countAccepted(): void {
    this.accepted[this.bucket % BUCKETS] += 1;
    this.acceptedInWindow += 1;
  }

  /** Adds another process's counts of one bucket to the newest bucket. */
  countOthers(accepted: number, attempted: number): void {
    const index = this.bucket % BUCKETS;
    this.othersAccepted[index] += accepted;
    this.othersAttempted[index] += attempted;
    this.othersAcceptedInWindow += accepted;
    this.othersAttemptedInWindow += attempted;
  }

  idle(): boolean {
    return this.attemptedInWindow === 0 && this.othersAttemptedInWindow === 0;
  }
}

/** What this process counted for one id in one bucket: published to the other processes. */
export type BucketCounts = Map<string, [accepted: number, attempted: number]>;

/**
 * A sliding one-second window per id (an API key's integration, a client address), shared by several processes
 * without a shared write per request: each process counts its own requests exactly and learns the others' counts
 * bucket by bucket (every {@link BUCKET_MS}), so what it knows of them is at most a bucket or two old.
 *
 * A request is admitted when both hold:
 * - all processes together accepted fewer than `limit` in the window;
 * - this process accepted fewer than its share of `limit`: the share of the window's attempts (accepted or not)
 *   that came to this process. Without the share, every process would see the same capacity free when an old bucket
 *   leaves the window and fill it at once, each unaware of the others for a bucket: N processes, N times the limit.
 *   With it, the processes' shares sum to about 1, and what they accept to about `limit`.
 *
 * Time is passed in (milliseconds) so that the arithmetic is tested without clocks.
 */
export class RateWindow {
  private readonly counts = new Map<string, Counts>();

  constructor(
    readonly limit: number,
    private readonly maxIds = MAX_IDS,
  ) {}

  /** Counts an attempt of `id` at `now` and whether it is admitted (counted as accepted if so). */
  admit(id: string, now: number): boolean {
    const counts = this.countsOf(id, now);
    counts.countAttempt();
    if (!this.fits(counts)) return false;
    counts.countAccepted();
    return true;
  }

  /** Whether `id` has room for one more at `now`, without counting anything. */
  allows(id: string, now: number): boolean {
    const counts = this.counts.get(id) ?? (this.counts.size >= this.maxIds ? this.counts.get(OVERFLOW_ID) : undefined);
    if (!counts) return true;
    counts.advance(Math.floor(now / BUCKET_MS));
    return this.fits(counts);
  }

  private fits(counts: Counts): boolean {
    const accepted = counts.acceptedInWindow;
    if (accepted + counts.othersAcceptedInWindow >= this.limit) return false;
    const othersAttempted = counts.othersAttemptedInWindow;
    if (othersAttempted === 0) return true;
    const attempted = counts.attemptedInWindow;
    return accepted < (this.limit * attempted) / (attempted + othersAttempted);
  }

  /** Adds another process's counts of one bucket, as they arrive (into the bucket of `now`). */
  addOthers(id: string, accepted: number, attempted: number, now: number): void {
    this.countsOf(id, now).countOthers(accepted, attempted);
  }

  /**
   * This process's counts of the buckets after `after` up to `upTo` (buckets that have ended), per id that had any;
   * drops the ids idle for a whole window on the way, so that memory follows the ids in use.
   */
  collect(after: number, upTo: number): BucketCounts {
    const out: BucketCounts = new Map();
    const from = Math.max(after + 1, upTo - BUCKETS + 1);
    for (const [id, counts] of this.counts) {
      counts.advance(upTo + 1);
      if (counts.idle()) {
        this.counts.delete(id);
        continue;
      }
      let accepted = 0;
      let attempted = 0;
      for (let bucket = Math.max(from, counts.bucket - BUCKETS + 1); bucket <= upTo; bucket += 1) {
        accepted += counts.accepted[bucket % BUCKETS];
        attempted += counts.attempted[bucket % BUCKETS];
      }
      if (attempted > 0) out.set(id, [accepted, attempted]);
    }
    return out;
  }

  get size(): number {
    return this.counts.size;
  }

  private countsOf(id: string, now: number): Counts {
    const bucket = Math.floor(now / BUCKET_MS);
    let counts = this.counts.get(id);
    if (!counts) {
      if (this.counts.size >= this.maxIds && id !== OVERFLOW_ID) return this.countsOf(OVERFLOW_ID, now);
      counts = new Counts(bucket);
      this.counts.set(id, counts);
    }
    counts.advance(bucket);
    return counts;
  }
}
