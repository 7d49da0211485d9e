import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { generateApiKey, hashApiKey } from '#domain';
import { AmqpClient, cliSessionQueue, publishPlatformEvent } from '#messaging';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { SecretCipher } from '#platform';
import { appTestEnv, insertMerchant, testEnv, transactionEvent, waitFor } from '#testing';
import { DataSource } from 'typeorm';
import { loadWebhookConfigConfig } from '../config/webhook-config.config.js';
import { CliKeyLookup } from './cli-key.lookup.js';
import { CliSessionExceptionCode } from './cli-session.exception.js';
import { CliSessionQueues } from './cli-session.queues.js';
import { CliSessionRepository } from './cli-session.repository.js';
import { CliSessionService, MAX_LIVE_SESSIONS } from './cli-session.service.js';

/**
 * `payments listen` sessions on a real database (as webhook-config's role, which reads API keys only through
 * transaction-api's function) and a real broker: whose a key is, a session's queue and what reaches it (its
 * integration's events of the kinds it chose, a trigger's sample), the limit per integration, the backend's list and
 * log, and what is forgotten.
 */
describe('CliSessionService (real PostgreSQL, RabbitMQ)', () => {
  const config = loadWebhookConfigConfig(appTestEnv());
  let seed: DataSource;
  let db: DataSource;
  let amqp: AmqpClient;
  let repository: CliSessionRepository;
  let queues: CliSessionQueues;
  let service: CliSessionService;
  let keys: CliKeyLookup;

  /** A merchant with an integration whose API key is `apiKey`. */
  async function integration(): Promise<{ merchantId: string; integrationId: string; apiKey: string }> {
    const merchantId = await insertMerchant(seed);
    const integrationId = randomUUID();
    const apiKey = generateApiKey();
    await seed.query(
      `INSERT INTO payments.integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, 'shop', $3, 'pk_x')`,
      [integrationId, merchantId, hashApiKey(apiKey)],
    );
    return { merchantId, integrationId, apiKey };
  }

  /** The messages waiting in a session's queue, taken. */
  async function drain(sessionId: string): Promise<Array<{ type: string; subjectId: string }>> {
    const connection = await (await import('amqplib')).connect(testEnv().amqpUrl);
    try {
      const channel = await connection.createChannel();
      const taken = [];
      for (;;) {
        const message = await channel.get(cliSessionQueue(sessionId), { noAck: true });
        if (!message) break;
        taken.push(JSON.parse(message.content.toString()) as { type: string; subjectId: string });
      }
      return taken;
    } finally {
      await connection.close();
    }
  }

  beforeAll(async () => {
    seed = await new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2 })).initialize();
    db = await new DataSource(
      dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2, ...WEBHOOK_CONFIG_DATABASE }),
    ).initialize();
    amqp = new AmqpClient({
      url: testEnv().amqpUrl,
      name: 'cli-session-spec',
      topology: { retryDelaysMs: config.retryDelaysMs },
    });
    await amqp.waitForConnect();
    repository = new CliSessionRepository(db);
    queues = new CliSessionQueues(amqp);
    keys = new CliKeyLookup(repository);
    service = new CliSessionService(repository, queues, new SecretCipher(Buffer.alloc(32, 'cli')), amqp);
  });
  afterAll(async () => {
    await queues.onApplicationShutdown();
    await amqp.close();
    await db.destroy();
    await seed.destroy();
  });

  it('knows a key by its integration through transaction-api’s function, and says what is wrong with any other', async () => {
    const { merchantId, integrationId, apiKey } = await integration();
    await expect(keys.require(apiKey)).resolves.toEqual({ merchantId, integrationId });
    await expect(keys.require(undefined)).rejects.toMatchObject({ code: CliSessionExceptionCode.API_KEY_MISSING });
    await expect(keys.require('pk_short')).rejects.toMatchObject({ code: CliSessionExceptionCode.API_KEY_MALFORMED });
    await expect(keys.require(generateApiKey())).rejects.toMatchObject({
      code: CliSessionExceptionCode.API_KEY_UNKNOWN,
    });
    // The role reads no key and no hash: only the function answers it.
    await expect(db.query('SELECT api_key_hash FROM payments.integration')).rejects.toThrow(/permission denied/);
  });

  it('a session’s queue gets its integration’s events of the kinds it chose, and the samples of a trigger', async () => {
    const { merchantId, integrationId } = await integration();
    const other = await integration();
    const principal = { merchantId, integrationId };
    const session = await service.start(principal, { events: ['transaction'], forwardTo: 'http://localhost:4242/x' });
    expect(session).toMatchObject({
      secret: expect.stringMatching(/^whsec_/),
      events: ['transaction'],
      version: '2026-08-20',
      contentType: 'json',
      keepEventsSeconds: 300,
    });
    const mine = transactionEvent(merchantId, integrationId);
    const publish = (event: ReturnType<typeof transactionEvent>) =>
      publishPlatformEvent(amqp, event, Buffer.from(JSON.stringify(event)));
    await publish(mine);
    await publish(transactionEvent(merchantId, other.integrationId)); // another integration's
    await publish(transactionEvent(merchantId, null)); // no integration's
    await publish({ ...transactionEvent(merchantId, integrationId), category: 'subscription' } as never); // not chosen
    const triggered = await service.trigger(principal, 'transaction');
    expect(triggered).toMatchObject({ eventType: 'transaction.created', sessions: 1 });
    expect((await service.trigger(principal, 'payout')).sessions).toBe(0);
    const waiting = await waitFor(async () => {
      const taken = await drain(session.id);
      return taken.length >= 2 && taken;
    });
    expect(waiting.map((m) => m.subjectId)).toEqual([mine.subjectId, expect.any(String)]);
    expect(waiting[1]).toMatchObject({ type: 'transaction.created' });
  });

  it('an integration has at most 100 live sessions; the backend lists the merchant’s, each with its log', async () => {
    const { merchantId, integrationId } = await integration();
    for (let i = 0; i < MAX_LIVE_SESSIONS; i += 1) {
      await repository.create({
        id: randomUUID(),
        merchantId,
        integrationId,
        events: ['transaction'],
        version: '2026-08-20',
        contentType: 'json',
        forwardTo: null,
        secretCiphertext: Buffer.from('x'),
      });
    }
    await expect(service.start({ merchantId, integrationId }, {})).rejects.toMatchObject({
      code: CliSessionExceptionCode.TOO_MANY_SESSIONS,
    });
    const listed = await service.listLive(merchantId);
    expect(listed).toHaveLength(MAX_LIVE_SESSIONS);
    expect(listed[0]).toMatchObject({ connected: false, integrationId });
    const sessionId = listed[0]!.id;
    const entry = (n: number) => ({
      sessionId,
      webhookId: `w${n}`,
      eventId: randomUUID(),
      eventType: 'transaction.created',
      subjectId: randomUUID(),
      referenceId: `order-${n}`,
      status: 200,
      durationMs: n,
      error: null,
    });
    await repository.addLogs([entry(1), entry(2), entry(3)]);
    await repository.addLogs([entry(3)]); // reported twice after a reconnect: logged once
    const first = await service.logs(merchantId, sessionId, 2, undefined);
    expect(first.data.map((e) => e.referenceId)).toEqual(['order-3', 'order-2']);
    const second = await service.logs(merchantId, sessionId, 2, first.nextCursor!);
    expect(second).toEqual({ data: [expect.objectContaining({ referenceId: 'order-1' })], nextCursor: null });
    await expect(service.logs(await insertMerchant(seed), sessionId, 2, undefined)).rejects.toMatchObject({
      code: CliSessionExceptionCode.SESSION_NOT_FOUND,
    });
  });

  it('forgets sessions ended or away for a day, with their logs; a connection says since when nobody was connected', async () => {
    const { merchantId, integrationId } = await integration();
    const started = await service.start({ merchantId, integrationId }, {});
    const away = await repository.connected(started.id);
    expect(Date.now() - away.getTime()).toBeLessThan(60_000); // its creation
    await repository.disconnected(started.id, false);
    await seed.query(`UPDATE backend.cli_session SET disconnected_at = now() - interval '10 minutes' WHERE id = $1`, [
      started.id,
    ]);
    const again = await repository.connected(started.id);
    expect(Date.now() - again.getTime()).toBeGreaterThan(9 * 60_000);
    await repository.disconnected(started.id, true); // stopped with Ctrl+C: ended
    expect(await repository.findLive(started.id, integrationId)).toBeUndefined();
    await seed.query(`UPDATE backend.cli_session SET ended_at = now() - interval '25 hours' WHERE id = $1`, [
      started.id,
    ]);
    expect(await repository.forgetOld()).toBeGreaterThanOrEqual(1);
    expect(await repository.exists(merchantId, started.id)).toBe(false);
  });
});
