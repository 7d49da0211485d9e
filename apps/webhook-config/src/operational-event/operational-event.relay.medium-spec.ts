import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID, randomUUIDv7 } from 'node:crypto';
import { platformEvents, readEventSubject, type AmqpClient } from '#messaging';
import { dataSourceOptions, WEBHOOK_CONFIG_DATABASE } from '#persistence';
import { insertMerchant, insertWebhook, testEnv } from '#testing';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { OperationalEventOutbox } from './operational-event.outbox.js';
import { OperationalEventRelay } from './operational-event.relay.js';

/**
 * The outbox of operational events on a real database, as webhook-config's role: an event written with a change is
 * published with its routing key and id, marked published only once the broker confirmed it, and tried again later
 * when it did not; a finished recover is written as `webhook.recovered` with its count, once. The broker is ours.
 */
describe('OperationalEventOutbox and OperationalEventRelay (real PostgreSQL)', () => {
  const admin = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
  let db: DataSource;
  let outbox: OperationalEventOutbox;
  let merchantId: string;
  const published: Array<{ exchange: string; routingKey: string; body: string; messageId: unknown }> = [];
  let brokerDown = false;
  const amqp = {
    publish: async (exchange: string, routingKey: string, body: Buffer, options: { messageId?: string }) => {
      if (brokerDown) throw new Error('broker away');
      published.push({ exchange, routingKey, body: body.toString(), messageId: options.messageId });
    },
  } as unknown as AmqpClient;

  beforeAll(async () => {
    db = await new DataSource(
      dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2, ...WEBHOOK_CONFIG_DATABASE }),
    ).initialize();
    outbox = new OperationalEventOutbox(db);
    merchantId = await insertMerchant(admin);
  });
  afterAll(async () => {
    await db.destroy();
    await admin.end();
  });

  const rowsOf = async (webhookId: string) =>
    (
      await admin.query(
        `SELECT type, attempts, published_at, last_error, next_attempt_at > now() AS later
           FROM operational_event WHERE webhook_id = $1 ORDER BY id`,
        [webhookId],
      )
    ).rows;

  it('publishes an event once the broker confirms it, and tries one again later when it does not', async () => {
    const webhookId = await insertWebhook(admin, { merchantId, name: 'Shop', enabled: false, disabledReason: 'gone' });
    await db.transaction((manager) => outbox.record(manager, 'webhook.disabled', { merchantId, webhookId }));
    const relay = new OperationalEventRelay(outbox, amqp);

    brokerDown = true;
    expect(await relay.publishDue()).toBeGreaterThanOrEqual(1);
    expect(await rowsOf(webhookId)).toEqual([
      { type: 'webhook.disabled', attempts: 1, published_at: null, last_error: 'broker away', later: true },
    ]);
    // Not due yet: nothing is claimed again before its time.
    brokerDown = false;
    await relay.publishDue();
    expect(published.filter((p) => p.body.includes(webhookId))).toEqual([]);

    await admin.query(`UPDATE operational_event SET next_attempt_at = now() WHERE webhook_id = $1`, [webhookId]);
    await relay.publishDue();
    const [row] = await rowsOf(webhookId);
    expect(row).toMatchObject({ attempts: 2, last_error: null });
    expect(row.published_at).toBeInstanceOf(Date);
    const [message] = published.filter((p) => p.body.includes(webhookId));
    expect(message).toMatchObject({ exchange: 'payments.events', routingKey: 'webhook.disabled' });
    // The platform event as the fan-out reads it: the webhook's record, its integration (none).
    const event = platformEvents.read(Buffer.from(message!.body));
    expect(event.ok).toBe(true);
    if (!event.ok) return;
    expect(message!.messageId).toBe(event.value.id);
    expect(event.value).toMatchObject({ category: 'webhook', merchantId, integrationId: null, subjectId: webhookId });
    expect(readEventSubject(event.value)).toEqual({
      ok: true,
      value: {
        type: 'webhook',
        webhook: expect.objectContaining({ id: webhookId, name: 'Shop', state: 'disabled', disabledReason: 'gone' }),
      },
    });
    // Published: never again.
    await relay.publishDue();
    expect(published.filter((p) => p.body.includes(webhookId))).toHaveLength(1);
  });

  it('writes webhook.recovered for a finished recover with the count it sent, once; not for a running one', async () => {
    const webhookId = await insertWebhook(admin, { merchantId });
    const [finished, running] = [randomUUIDv7(), randomUUIDv7()];
    await admin.query(
      `INSERT INTO delivery.webhook_recover (id, webhook_id, merchant_id, since, state, total, started_at, finished_at)
       VALUES ($1, $3, $4, now() - interval '1 day', 'finished', 5, now() - interval '1 minute', now()),
              ($2, $5, $4, now() - interval '1 day', 'running', 5, now(), NULL)`,
      [finished, running, webhookId, merchantId, randomUUID()],
    );
    await admin.query(`INSERT INTO delivery.webhook_recover_sent (recover_id, sent, at) VALUES ($1, 4, now())`, [
      finished,
    ]);
    expect(await outbox.recordFinishedRecovers(50)).toBeGreaterThanOrEqual(1);
    expect(await outbox.recordFinishedRecovers(50)).toBe(0);
    const events = (await admin.query(`SELECT type, payload FROM operational_event WHERE webhook_id = $1`, [webhookId]))
      .rows;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'webhook.recovered', payload: { data: { id: webhookId, count: 4 } } });
  });
});
