import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { sql } from './db.js';
import { TransactionApiHarness } from './harness.js';

const SUBSCRIPTION_KEYS = [
  'id',
  'status',
  'event',
  'referenceId',
  'amount',
  'currency',
  'interval',
  'integrationId',
  'createdAt',
  'updatedAt',
];

describe('subscriptions and payouts (e2e over HTTP)', () => {
  let api: TransactionApiHarness;
  let merchant: { merchantId: string; integrationId: string; apiKey: string };

  beforeAll(async () => {
    api = await TransactionApiHarness.start();
    merchant = await api.merchantWithKey();
  });
  afterAll(async () => {
    await api.close();
  });

  const subscribe = (extra: Record<string, unknown> = {}) =>
    api.platform<Record<string, unknown>>('POST', '/internal/subscriptions', {
      merchantId: merchant.merchantId,
      integrationId: merchant.integrationId,
      referenceId: 'abo-1',
      amount: 4900,
      currency: 'EUR',
      interval: 'P1M',
      ...extra,
    });

  it('creates an active subscription and records its events through the lifecycle', async () => {
    const created = await subscribe();
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(SUBSCRIPTION_KEYS);
    expect(created.body).toMatchObject({
      status: 'active',
      event: null,
      amount: 4900,
      currency: 'EUR',
      interval: 'P1M',
      integrationId: merchant.integrationId,
    });
    const id = created.body.id as string;
    const event = (name: string) =>
      api.platform<Record<string, unknown>>('POST', `/internal/subscriptions/${id}/events`, { event: name });

    expect((await event('renewed')).body).toMatchObject({ status: 'active', event: 'renewed' });
    expect((await event('payment_failed')).body).toMatchObject({ status: 'past_due', event: 'payment_failed' });
    expect((await event('cancelled')).body).toMatchObject({ status: 'cancelled', event: 'cancelled' });
    // The same state event again (a retry after a lost answer): 200, the subscription as it is, no new event.
    const cancelledAgain = await event('cancelled');
    expect(cancelledAgain.status).toBe(200);
    expect(cancelledAgain.body).toMatchObject({ status: 'cancelled', event: 'cancelled' });
    const renewAfterCancel = await event('renewed');
    expect(renewAfterCancel.status).toBe(409);
    expect(renewAfterCancel.contentType).toContain('application/problem+json');
    const ended = await event('ended');
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ status: 'ended', event: 'ended' });
    expect((await event('ended')).status).toBe(200);
    expect((await event('cancelled')).status).toBe(409); // ended is final

    const types = await sql<{ type: string }>('SELECT type FROM outbox_event WHERE subject_id = $1 ORDER BY seq', [id]);
    expect(types.map((row) => row.type)).toEqual([
      'subscription.created',
      'subscription.renewed',
      'subscription.payment_failed',
      'subscription.cancelled',
      'subscription.ended',
    ]);
    // Each event's updatedAt is later than the one before (receivers keep the newest), even within a millisecond.
    const stamps = await sql<{ at: string }>(
      `SELECT payload->'data'->>'updatedAt' AS at FROM outbox_event WHERE subject_id = $1 ORDER BY seq`,
      [id],
    );
    for (let i = 1; i < stamps.length; i += 1) {
      expect(Date.parse(stamps[i].at)).toBeGreaterThan(Date.parse(stamps[i - 1].at));
    }
  });

  it('accepts the interval keywords and ISO 8601 durations, and refuses anything else naming the field', async () => {
    for (const interval of ['monthly', 'yearly', 'P1Y', 'P2W', 'P1Y6M', 'P30D'])
      expect((await subscribe({ interval })).status).toBe(201);
    for (const [body, field] of [
      [{ interval: 'P' }, 'interval'],
      [{ interval: 'fortnightly' }, 'interval'],
      [{ interval: 1 }, 'interval'],
      [{ amount: 0 }, 'amount'],
      [{ currency: 'eur' }, 'currency'],
      [{ currency: 'ZZZ' }, 'currency'],
      [{ merchantId: randomUUID() }, 'merchantId'],
      [{ referenceId: '' }, 'referenceId'],
      [{ status: 'active' }, 'status'],
    ] as const) {
      const reply = await subscribe(body);
      expect(reply.status).toBe(400);
      expect((reply.body.errors as { field: string }[]).map((e) => e.field)).toContain(field);
    }
  });

  it('refuses an interval of zero length, and says what an interval is', async () => {
    const message =
      'must be daily, weekly, monthly, quarterly, yearly or an ISO 8601 duration longer than zero such as P1M';
    for (const interval of ['P0D', 'P0Y0M', 'P00W', 'P0Y0M0W0D', 'P', 'fortnightly']) {
      const reply = await subscribe({ interval });
      expect([interval, reply.status, reply.body.errors]).toEqual([interval, 400, [{ field: 'interval', message }]]);
    }
    const number = await subscribe({ interval: 1 });
    expect(number.body.errors).toEqual([{ field: 'interval', message: 'must be a string' }]);
    for (const interval of ['P10D', 'P0Y1M', 'P1W0D']) expect((await subscribe({ interval })).status).toBe(201);
  });

  it('answers 404 for an unknown subscription and 400 for an unknown event', async () => {
    expect(
      (await api.platform('POST', `/internal/subscriptions/${randomUUID()}/events`, { event: 'renewed' })).status,
    ).toBe(404);
    const id = (await subscribe()).body.id as string;
    const unknown = await api.platform<{ errors: { field: string }[] }>(
      'POST',
      `/internal/subscriptions/${id}/events`,
      { event: 'paused' },
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((e) => e.field)).toEqual(['event']);
  });

  it('records a payout as initialised with its event, without an integration', async () => {
    const payout = await api.platform<Record<string, unknown>>('POST', '/internal/payouts', {
      merchantId: merchant.merchantId,
      amount: 125000,
      currency: 'CHF',
    });
    expect(payout.status).toBe(201);
    expect(payout.body).toEqual({
      id: expect.any(String),
      status: 'initialised',
      amount: 125000,
      currency: 'CHF',
      createdAt: expect.any(String),
    });
    const [row] = await sql<{ payload: { integrationId: null; merchantId: string; category: string; data: unknown } }>(
      'SELECT payload FROM outbox_event WHERE subject_id = $1',
      [payout.body.id],
    );
    expect(row.payload).toMatchObject({
      category: 'payout',
      merchantId: merchant.merchantId,
      integrationId: null,
      data: payout.body,
    });
    for (const body of [
      { merchantId: merchant.merchantId, amount: 1.5, currency: 'CHF' },
      { merchantId: merchant.merchantId, amount: 1, currency: 'CHF', integrationId: null },
    ]) {
      expect((await api.platform('POST', '/internal/payouts', body)).status).toBe(400);
    }
  });

  const outboxEvents = async (subjectId: string) =>
    (await sql<{ type: string }>('SELECT type FROM outbox_event WHERE subject_id = $1 ORDER BY seq', [subjectId])).map(
      (row) => row.type,
    );

  it('makes a payout idempotent on its optional id: a retry answers 200 with no new event, other data 409', async () => {
    const id = randomUUID();
    const body = { id, merchantId: merchant.merchantId, amount: 5000, currency: 'CHF' };
    // Concurrent retries too: one records it, the others answer with it.
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.platform('POST', '/internal/payouts', body)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    for (const answer of answers) expect(answer.body).toEqual(answers[0].body);
    expect(answers[0].body).toMatchObject({ id, status: 'initialised', amount: 5000, currency: 'CHF' });
    expect(await outboxEvents(id)).toEqual(['payout.created']);

    const upper = await api.platform('POST', '/internal/payouts', { ...body, id: id.toUpperCase() });
    expect([upper.status, upper.body]).toEqual([200, answers[0].body]);
    const elsewhere = await api.merchantWithKey();
    const otherMerchant = await api.platform('POST', '/internal/payouts', {
      ...body,
      merchantId: elsewhere.merchantId,
    });
    expect(otherMerchant.status).toBe(409);
    const other = await api.platform<{ errors: unknown }>('POST', '/internal/payouts', { ...body, amount: 5001 });
    expect([other.status, other.body.errors]).toEqual([
      409,
      [{ field: 'id', message: 'is already used by a different payout' }],
    ]);
    const bad = await api.platform<{ errors: Array<{ field: string }> }>('POST', '/internal/payouts', {
      ...body,
      id: 'payout-1',
    });
    expect([bad.status, bad.body.errors.map((e) => e.field)]).toEqual([400, ['id']]);
    expect(await sql('SELECT amount::int FROM payout WHERE id = $1', [id])).toEqual([{ amount: 5000 }]);
  });

  it('makes a subscription idempotent on its optional id, answering it as it is now', async () => {
    const id = randomUUID();
    const first = await subscribe({ id });
    expect([first.status, first.body.id]).toEqual([201, id]);
    await api.platform('POST', `/internal/subscriptions/${id}/events`, { event: 'payment_failed' });
    const retry = await subscribe({ id });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id, status: 'past_due', event: 'payment_failed' });
    expect(await outboxEvents(id)).toEqual(['subscription.created', 'subscription.payment_failed']);
    for (const change of [
      { interval: 'P1Y' },
      { referenceId: 'abo-2' },
      { integrationId: null },
      { amount: 4901 },
      { currency: 'CHF' },
    ]) {
      const other = await subscribe({ id, ...change });
      expect([change, other.status]).toEqual([change, 409]);
    }
    expect(await outboxEvents(id)).toHaveLength(2);
  });
});
