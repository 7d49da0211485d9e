import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isUUID } from 'class-validator';
import { platformEvents } from '#messaging';
import { rabbitmqctl, waitFor } from '#testing';
import { sql } from './db.js';
import { EventTap } from './event-tap.js';
import { TransactionApiHarness, transactionBody } from './harness.js';

/** Events leave through the transactional outbox: every one arrives, in order per subject, even across a broker restart. */
describe('outbox → payments.events (e2e over HTTP and RabbitMQ)', () => {
  let api: TransactionApiHarness;
  let tap: EventTap;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };

  beforeAll(async () => {
    tap = await EventTap.open();
    api = await TransactionApiHarness.start();
    merchant = await api.merchantWithKey();
  });
  afterAll(async () => {
    await api.close();
    await tap.close();
  });

  const expectedEvents = async (merchantId: string) =>
    sql<{ id: string; type: string; subject_id: string; seq: string; sent: boolean }>(
      `SELECT id, type, subject_id, seq, sent_at IS NOT NULL AS sent FROM outbox_event WHERE payload->>'merchantId' = $1 ORDER BY seq`,
      [merchantId],
    );

  it('publishes the PlatformEvent envelope with routing key = type and messageId = event id, promptly', async () => {
    const started = Date.now();
    const created = await api.platform<Record<string, unknown>>(
      'POST',
      '/internal/transactions',
      transactionBody(merchant.merchantId, merchant.integrationId, {
        authentication: { eci: '05', source: 'token' },
      }),
    );
    const [event] = await tap.waitFor((e) => e.subjectId === created.body.uuid, 1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(event.routingKey).toBe('transaction.created');
    expect(event.messageId).toBe(event.event.id);
    expect(event.event).toEqual({
      v: 1,
      id: expect.any(String),
      type: 'transaction.created',
      category: 'transaction',
      merchantId: merchant.merchantId,
      integrationId: merchant.integrationId,
      occurredAt: created.body.updatedAt,
      subjectId: created.body.uuid,
      position: expect.any(Number),
      data: {
        uuid: created.body.uuid,
        referenceId: 'order-1',
        status: 'waiting',
        psp: 'Payrexx Direct',
        type: 'e-commerce',
        paymentMethod: 'visa',
        amount: 1990,
        currency: 'CHF',
        integrationId: merchant.integrationId,
        createdAt: created.body.createdAt,
        updatedAt: created.body.updatedAt,
        threeDSecure: { eci: '05', source: 'token', version: null, flow: null },
      },
    });
    expect(isUUID(event.event.id, 7)).toBe(true); // time-ordered, like every event id
    expect(platformEvents.check(event.event)).toEqual({ ok: true, value: event.event }); // what the dispatcher reads
  });

  it("gives every event its position in its subject's history: the outbox seq, higher for each later event", async () => {
    const uuids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await api.platform<{ uuid: string }>(
        'POST',
        '/internal/transactions',
        transactionBody(merchant.merchantId, merchant.integrationId),
      );
      uuids.push(created.body.uuid);
    }
    // Interleaved status changes of the three transactions, so that their positions interleave too.
    for (const status of ['authorized', 'confirmed', 'refund_pending', 'refunded']) {
      for (const uuid of uuids) {
        expect((await api.platform('POST', `/internal/transactions/${uuid}/status`, { status })).status).toBe(200);
      }
    }
    const arrived = await tap.waitFor((event) => uuids.includes(event.subjectId), uuids.length * 5);
    const rows = await sql<{ id: string; seq: string }>(
      `SELECT id, seq FROM outbox_event WHERE subject_id = ANY($1::uuid[])`,
      [uuids],
    );
    const seqOf = new Map(rows.map((row) => [row.id, Number(row.seq)]));
    for (const { event } of arrived) {
      expect(event.position).toBe(seqOf.get(event.id));
      expect(platformEvents.check(event)).toEqual({ ok: true, value: event });
    }
    for (const uuid of uuids) {
      const events = arrived.map((tapped) => tapped.event).filter((event) => event.subjectId === uuid);
      expect(events.map((event) => (event.data as { status: string }).status)).toEqual([
        'waiting',
        'authorized',
        'confirmed',
        'refund_pending',
        'refunded',
      ]);
      const positions = events.map((event) => event.position!);
      positions.slice(1).forEach((position, i) => expect(position).toBeGreaterThan(positions[i]));
    }
  });

  it('delivers every event, in order per transaction, when RabbitMQ is stopped and started mid-stream', async () => {
    const merchant = await api.merchantWithKey('Restart merchant');
    const flow = ['authorized', 'confirmed', 'refund_pending', 'refunded'];
    let stop = false;
    let recorded = 0;
    const failures: string[] = [];
    const producer = async () => {
      while (!stop) {
        const created = await api.platform<{ uuid: string }>(
          'POST',
          '/internal/transactions',
          transactionBody(merchant.merchantId, merchant.integrationId),
        );
        if (created.status !== 201) failures.push(`create ${created.status}`);
        for (const status of flow) {
          const moved = await api.platform('POST', `/internal/transactions/${created.body.uuid}/status`, { status });
          if (moved.status !== 200) failures.push(`${status} ${moved.status}`);
        }
        recorded += 1;
      }
    };
    const producers = Array.from({ length: 4 }, producer);

    await waitFor(() => recorded >= 10, { timeoutMs: 20_000, what: 'events before the outage' });
    await rabbitmqctl('stop_app');
    const duringOutage = recorded;
    try {
      // Not ready meanwhile, and the answer says why.
      const ready = await waitFor(
        async () => {
          const response = await fetch(`${api.baseUrl}/health/ready`);
          return response.status === 503 ? ((await response.json()) as Record<string, unknown>) : undefined;
        },
        { timeoutMs: 10_000, what: '/health/ready to answer 503' },
      );
      expect(ready).toMatchObject({
        status: 503,
        detail: 'Not ready: rabbitmq not answering.',
        checks: { database: 'up', rabbitmq: 'down' },
      });
      await waitFor(() => recorded >= duringOutage + 10, {
        timeoutMs: 20_000,
        what: 'recording to go on while the broker is down',
      });
    } catch (error) {
      stop = true; // the producers would otherwise go on POSTing into the next suites
      throw error;
    } finally {
      // Even when a check above fails: the suites after this one need the broker.
      await rabbitmqctl('start_app');
    }
    const afterRestart = recorded;
    await waitFor(() => recorded >= afterRestart + 10, { timeoutMs: 30_000, what: 'recording after the restart' });
    stop = true;
    await Promise.all(producers);
    expect(failures).toEqual([]);

    const expected = await expectedEvents(merchant.merchantId);
    expect(expected.length).toBeGreaterThanOrEqual(5 * 30);
    const arrived = await tap.waitFor((event) => event.merchantId === merchant.merchantId, expected.length, 60_000);
    const firstArrival = new Map<string, number>();
    arrived.forEach((tapped, index) => {
      if (!firstArrival.has(tapped.event.id)) firstArrival.set(tapped.event.id, index);
    });
    // Never lost: every outbox row arrived (at-least-once: a repeat is possible, a gap is not).
    for (const row of expected) expect(firstArrival.has(row.id)).toBe(true);
    // Never reordered: each transaction's events arrived in the order they were written.
    const bySubject = new Map<string, typeof expected>();
    for (const row of expected) bySubject.set(row.subject_id, [...(bySubject.get(row.subject_id) ?? []), row]);
    for (const rows of bySubject.values()) {
      const order = rows.map((row) => firstArrival.get(row.id)!);
      expect(order).toEqual([...order].sort((x, y) => x - y));
      expect(rows.map((row) => row.type)).toEqual([
        'transaction.created',
        ...flow.map(() => 'transaction.status_changed'),
      ]);
    }
    await waitFor(async () => (await expectedEvents(merchant.merchantId)).every((row) => row.sent), {
      what: 'every row marked sent',
    });
  }, 150_000);
});
