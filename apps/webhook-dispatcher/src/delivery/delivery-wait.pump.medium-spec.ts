import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import amqplib from 'amqplib';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { AmqpClient, ATTEMPT_HEADER, QUEUES, RATE_AT_HEADER, type DeliveryMessage } from '#messaging';
import { dataSourceOptions, WEBHOOK_DISPATCHER_DATABASE } from '#persistence';
import { appTestEnv, testEnv, waitFor } from '#testing';
import { DatabaseRetry } from '../common/database-retry.js';
import { loadWebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import type { SigningWebhook, WebhookCache } from '../webhook/webhook.cache.js';
import { DeliveryPublisher } from './delivery.publisher.js';
import { DeliveryWaitPump, PUMP_WINDOW_MS } from './delivery-wait.pump.js';
import { DeliveryWaitRepository } from './delivery-wait.repository.js';
import { WebhookRateLimiter } from './webhook-rate.limiter.js';

interface Released {
  deliveryId: string;
  webhookId: string;
  attempt: number;
  rateAt: number | undefined;
}

/**
 * The schedule of waiting deliveries and its pump against a real PostgreSQL and RabbitMQ: two "processes" (a data
 * source, a broker connection and a pump each) over one table. The webhooks' settings come from a map (the cache of
 * webhook-config's table is not what is tested here).
 */
describe('DeliveryWaitPump: the schedule of waiting deliveries (real PostgreSQL, RabbitMQ)', () => {
  const settings = new Map<string, Partial<SigningWebhook> | undefined>();
  const cache = {
    forDelivery: async (id: string) => {
      const webhook = settings.get(id);
      return webhook && ({ id, enabled: true, maxPerSecond: null, ...webhook } as SigningWebhook);
    },
  } as unknown as WebhookCache;
  const processes: Array<{ db: DataSource; amqp: AmqpClient; waits: DeliveryWaitRepository; pump: DeliveryWaitPump }> =
    [];
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  let reader: amqplib.ChannelModel;
  let channel: amqplib.Channel;

  beforeAll(async () => {
    const config = loadWebhookDispatcherConfig(appTestEnv());
    for (let i = 0; i < 2; i += 1) {
      const db = await new DataSource(
        dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 6, ...WEBHOOK_DISPATCHER_DATABASE }),
      ).initialize();
      const retry = new DatabaseRetry();
      const amqp = new AmqpClient({ url: testEnv().amqpUrl, name: `pump-test-${i}`, topology: config.topology });
      await amqp.waitForConnect();
      const waits = new DeliveryWaitRepository(db, retry);
      const pump = new DeliveryWaitPump(
        waits,
        new WebhookRateLimiter(db, retry),
        cache,
        new DeliveryPublisher(amqp, config),
      );
      processes.push({ db, amqp, waits, pump });
    }
    reader = await amqplib.connect(testEnv().amqpUrl);
    channel = await reader.createChannel();
  });
  afterAll(async () => {
    for (const { db, amqp } of processes) {
      await amqp.close();
      await db.destroy();
    }
    await reader.close();
    await admin.end();
  });
  beforeEach(async () => {
    await admin.query(`DELETE FROM delivery.delivery_wait`);
    await released();
  });

  /** The deliveries published to the delivery queue since the last call, in order. */
  async function released(): Promise<Released[]> {
    const out: Released[] = [];
    for (;;) {
      const message = await channel.get(QUEUES.deliveries, { noAck: true });
      if (!message) return out;
      const body = JSON.parse(message.content.toString()) as DeliveryMessage;
      const headers = message.properties.headers ?? {};
      out.push({
        deliveryId: body.deliveryId,
        webhookId: body.snapshot!.webhookId,
        attempt: headers[ATTEMPT_HEADER] as number,
        rateAt: headers[RATE_AT_HEADER] as number | undefined,
      });
    }
  }

  /** Puts `count` deliveries of the webhook in the schedule (in order), due at `notBefore` (now by default). */
  async function wait(
    webhookId: string,
    count: number,
    { manual = false, notBefore = Date.now(), attempt = 1 } = {},
  ): Promise<string[]> {
    const ids = Array.from({ length: count }, () => randomUUIDv7());
    await Promise.all(
      ids.map((deliveryId) =>
        processes[0].waits.add({
          message: message(webhookId, deliveryId, manual),
          attempt,
          traceparent: null,
          notBefore,
        }),
      ),
    );
    return ids;
  }

  const waitingOf = async (webhookId: string) =>
    (await admin.query(`SELECT count(*)::int AS n FROM delivery.delivery_wait WHERE webhook_id = $1`, [webhookId]))
      .rows[0].n as number;

  it("releases a limited webhook's deliveries a short window at a time, first in first out, each with a start of its own — once over two processes", async () => {
    const webhookId = randomUUID();
    settings.set(webhookId, { maxPerSecond: 4 });
    const ids = await wait(webhookId, 20);

    // Both processes at once: one takes the webhook, the other skips it.
    const counts = await Promise.all(processes.map(({ pump }) => pump.tick()));
    const first = await released();
    // 4 a second: the starts that fit in the window (one now, then every 250 ms).
    const fit = Math.floor(PUMP_WINDOW_MS / 250) + 1;
    expect(counts.reduce((a, b) => a + b, 0)).toBe(fit);
    expect(first.map((r) => r.deliveryId)).toEqual(ids.slice(0, fit));
    const starts = first.map((r) => r.rateAt!);
    for (let i = 1; i < starts.length; i += 1) expect(starts[i] - starts[i - 1]).toBeCloseTo(250, -1);
    expect(Math.abs(starts[0] - Date.now())).toBeLessThan(1_000);
    expect(first.every((r) => r.attempt === 1 && r.webhookId === webhookId)).toBe(true);

    // At once again: nothing more, the window is booked.
    await Promise.all(processes.map(({ pump }) => pump.tick()));
    expect(await released()).toEqual([]);

    // The limit raised: the round after the starts already handed out (within the window) takes the rest.
    settings.set(webhookId, { maxPerSecond: 1_000 });
    const raisedAt = Date.now();
    const rest: Released[] = [];
    await waitFor(
      async () => {
        await processes[1].pump.tick();
        rest.push(...(await released()));
        return rest.length >= ids.length - fit;
      },
      { timeoutMs: 5_000, what: 'the rest released' },
    );
    expect(Date.now() - raisedAt).toBeLessThan(PUMP_WINDOW_MS + 1_000);
    expect(rest.map((r) => r.deliveryId)).toEqual(ids.slice(fit));
    expect(Math.min(...rest.map((r) => r.rateAt!))).toBeGreaterThan(Math.max(...starts));
    expect(await waitingOf(webhookId)).toBe(0);
  });

  it('the gate books only when nothing of the webhook waits before it, and its start is near', async () => {
    const webhookId = randomUUID();
    const rate = new WebhookRateLimiter(processes[0].db, new DatabaseRetry());
    expect(await rate.tryBook(webhookId, 1)).toMatchObject({ waitMs: 0 });
    // 1 a second: the next start is a second away (within the hold), the one after two seconds away (not).
    expect((await rate.tryBook(webhookId, 1))!.waitMs).toBeGreaterThan(900);
    expect(await rate.tryBook(webhookId, 1)).toBeNull();

    const other = randomUUID();
    await wait(other, 1);
    expect(await rate.tryBook(other, 1_000)).toBeNull();
    // A row due only later does not hold it up.
    const later = randomUUID();
    await wait(later, 1, { notBefore: Date.now() + 60_000 });
    expect(await rate.tryBook(later, 1_000)).toMatchObject({ waitMs: 0 });
  });

  it('releases an unlimited webhook’s backlog at once, and a row due later only at its time', async () => {
    const webhookId = randomUUID();
    settings.set(webhookId, { maxPerSecond: null });
    const ids = await wait(webhookId, 300);
    const [repeat] = await wait(webhookId, 1, { notBefore: Date.now() + 1_500, attempt: 3 });
    await processes[0].pump.tick();
    const now = await released();
    expect(now.map((r) => r.deliveryId)).toEqual(ids);
    expect(now.every((r) => r.rateAt === undefined)).toBe(true);
    expect(await waitingOf(webhookId)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await processes[0].pump.tick();
    expect(await released()).toEqual([{ deliveryId: repeat, webhookId, attempt: 3, rateAt: undefined }]);
  });

  it("hands a disabled webhook's automatic deliveries on unbooked (the gate logs them skipped), keeps its limit for tests and resends, and drops a deleted webhook's", async () => {
    const disabled = randomUUID();
    settings.set(disabled, { enabled: false, maxPerSecond: 1 });
    const automatic = await wait(disabled, 50);
    const manual = await wait(disabled, 3, { manual: true });
    await processes[0].pump.tick();
    const out = await released();
    expect(out.filter((r) => r.rateAt === undefined).map((r) => r.deliveryId)).toEqual(automatic);
    // 1 a second: one manual attempt in the window.
    expect(out.filter((r) => r.rateAt !== undefined).map((r) => r.deliveryId)).toEqual(manual.slice(0, 1));

    const deleted = randomUUID();
    settings.set(deleted, undefined);
    await wait(deleted, 5);
    await processes[0].pump.tick();
    expect((await released()).filter((r) => r.webhookId === deleted)).toEqual([]);
    expect(await waitingOf(deleted)).toBe(0);
  });
});

function message(webhookId: string, deliveryId: string, manual: boolean): DeliveryMessage {
  return {
    v: 1,
    deliveryId,
    ...(manual ? { manual: true } : {}),
    snapshot: {
      webhookId,
      eventId: randomUUIDv7(),
      eventType: 'transaction',
      subject: { uuid: randomUUID() },
      contentType: 'json',
      version: '2026-08-20',
      body: '{}',
    },
  } as DeliveryMessage;
}
