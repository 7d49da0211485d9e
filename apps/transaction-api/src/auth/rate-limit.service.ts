import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AmqpClient, EXCHANGES, publishRateCounts, rateCounts } from '#messaging';
import { TransactionApiConfig } from '../config/transaction-api.config.js';
import { BUCKET_MS, MAX_IDS, RateWindow } from './rate-limit.window.js';

/** A problem with the counts exchange is logged at most this often (it would otherwise say the same 10 times a second). */
const WARN_EVERY_MS = 60_000;

/**
 * The merchant read API's rate limit, `API_RATE_LIMIT` requests per second per API key, held for the sum over every
 * transaction-api process: each counts locally ({@link RateWindow}) and every 100 ms tells the others on the
 * `transaction-api.rate` fanout exchange what it counted. Wrong-key attempts are limited the same way per client
 * address. Nothing is written anywhere per request.
 *
 * While RabbitMQ is away each process limits on its own counts only (and the others' age out of the window within a
 * second): the sum may then reach the limit times the number of processes.
 */
@Injectable()
export class RateLimiter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly window: RateWindow;
  /** Tells this process's messages from the others' (a fanout brings each process its own too). */
  private readonly process = randomUUID();
  private published = Math.floor(Date.now() / BUCKET_MS) - 1;
  private timer?: NodeJS.Timeout;
  private lastWarning = 0;
  /** The window's id of each integration's key (`key:<id>`), built once rather than on every request. */
  private readonly keyIds = new Map<string, string>();

  constructor(
    config: TransactionApiConfig,
    private readonly amqp: AmqpClient,
  ) {
    this.window = new RateWindow(config.apiRateLimit);
  }

  /** Counts a request of an integration's API key; false: over the limit. */
  admitKey(integrationId: string): boolean {
    let id = this.keyIds.get(integrationId);
    if (id === undefined) {
      if (this.keyIds.size >= MAX_IDS) this.keyIds.clear();
      id = `key:${integrationId}`;
      this.keyIds.set(integrationId, id);
    }
    return this.window.admit(id, Date.now());
  }

  /** Whether this client address may still try a key: false once its wrong keys reached the limit. */
  mayTry(address: string): boolean {
    return this.window.allows(`ip:${address}`, Date.now());
  }

  /** Counts a wrong key from this client address; false: over the limit. */
  countWrongKey(address: string): boolean {
    return this.window.admit(`ip:${address}`, Date.now());
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.amqp.consume(
      '',
      (message) => {
        const read = rateCounts.read(message.content);
        if (!read.ok) this.warn(`ignored a ${EXCHANGES.rate} message: ${read.reason}`);
        else if (read.value.process !== this.process) {
          const now = Date.now();
          for (const [id, [accepted, attempted]] of Object.entries(read.value.counts)) {
            this.window.addOthers(id, accepted, attempted, now);
          }
        }
        return Promise.resolve('ack');
      },
      { prefetch: 100, exclusiveBindTo: { exchange: EXCHANGES.rate } },
    );
    this.timer = setInterval(() => this.publish(), BUCKET_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Sends the counts of the buckets ended since the last message (also drops idle ids). */
  private publish(): void {
    const upTo = Math.floor(Date.now() / BUCKET_MS) - 1;
    const counts = this.window.collect(this.published, upTo);
    this.published = upTo;
    // Disconnected, the publisher would queue messages in memory until the broker is back; they are of no use then.
    if (counts.size === 0 || !this.amqp.isConnected()) return;
    publishRateCounts(this.amqp, { process: this.process, counts: Object.fromEntries(counts) }).catch((error: Error) =>
      this.warn(`could not publish rate-limit counts: ${error.message}`),
    );
  }

  private warn(message: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.logger.warn(message);
  }
}
