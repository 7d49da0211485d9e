import { describe, expect, it } from '@jest/globals';
import { EVENT_KINDS, PLATFORM_EVENT_TYPES } from '#domain';
import {
  deliveryMessages,
  dispatcherCommands,
  platformEvents,
  readDelivery,
  readEventSubject,
  webhookChanges,
  type DeliveryMessage,
  type PlatformEvent,
  type WebhookChangedMessage,
} from './messages.js';

const ID = '0194f1c2-7a3b-7cde-8f01-23456789abcd';
const OTHER_ID = '0194f1c2-7a3b-7cde-8f01-23456789abce';
const json = (value: unknown) => Buffer.from(JSON.stringify(value));
/** `value` without `key`. */
const without = <T extends object>(value: T, key: keyof T) =>
  Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));

function event(): PlatformEvent {
  return {
    v: 1,
    id: ID,
    type: 'transaction.created',
    category: 'transaction',
    merchantId: OTHER_ID,
    integrationId: null,
    occurredAt: '2026-11-22T10:00:00.000Z',
    subjectId: ID,
    data: { uuid: ID, status: 'confirmed', customer: { email: 'jane@example.com' } },
  };
}

function delivery(): DeliveryMessage {
  return {
    v: 1,
    deliveryId: ID,
    snapshot: {
      webhookId: OTHER_ID,
      eventId: ID,
      eventType: 'transaction',
      subject: { psp: 'Payrexx Direct', type: 'e-commerce', uuid: ID },
      contentType: 'json',
      version: '2026-08-20',
      body: '{"transaction":{"uuid":"…"}}',
      occurredAt: '2026-11-22T10:00:00.000Z',
    },
  };
}

const change = (): WebhookChangedMessage => ({ v: 1, type: 'webhook.changed', webhookId: ID, merchantId: OTHER_ID });

describe('kinds and event types in the schemas: those of #domain, not a copy (issue #33)', () => {
  type Props = Record<string, { enum?: unknown[]; properties?: Props }>;
  const props = (schema: unknown) => (schema as { properties: Props }).properties;

  it('platform event: type and category', () => {
    expect(props(platformEvents.schema).type.enum).toStrictEqual([...PLATFORM_EVENT_TYPES]);
    expect(props(platformEvents.schema).category.enum).toStrictEqual([...EVENT_KINDS]);
  });

  it("delivery message: the snapshot's event type", () => {
    expect(props(deliveryMessages.schema).snapshot.properties?.eventType.enum).toStrictEqual([...EVENT_KINDS]);
  });
});

describe('platform event contract', () => {
  it('reads a valid event as it is', () => {
    expect(platformEvents.read(json(event()))).toEqual({ ok: true, value: event() });
  });

  it('reads an event published before versioning (no v) as version 1', () => {
    expect(platformEvents.read(json(without(event(), 'v')))).toEqual({ ok: true, value: event() });
  });

  it('refuses a missing field, a wrong type, an unknown type, a non-uuid id and a data array, saying where', () => {
    const reason = (value: unknown) => platformEvents.check(value);
    expect(reason(without(event(), 'merchantId'))).toEqual({
      ok: false,
      reason: "invalid platform event: / must have required property 'merchantId'",
    });
    expect(reason({ ...event(), integrationId: 42 })).toEqual({
      ok: false,
      reason: 'invalid platform event: /integrationId must be string,null',
    });
    expect(reason({ ...event(), type: 'transaction.exploded' })).toEqual({
      ok: false,
      reason: 'invalid platform event: /type must be equal to one of the allowed values',
    });
    expect(reason({ ...event(), id: 'not-a-uuid' })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^invalid platform event: \/id must match pattern/),
    });
    expect(reason({ ...event(), data: [] })).toEqual({
      ok: false,
      reason: 'invalid platform event: /data must be object',
    });
  });

  it('refuses an unknown version, whatever else the message holds', () => {
    expect(platformEvents.check({ ...event(), v: 2 })).toEqual({
      ok: false,
      reason: 'unknown version 2 of the platform event',
    });
    expect(platformEvents.check({ v: 2, anything: true })).toEqual({
      ok: false,
      reason: 'unknown version 2 of the platform event',
    });
    expect(platformEvents.check({ ...event(), v: '1' })).toEqual({
      ok: false,
      reason: 'unknown version (string) of the platform event',
    });
  });

  it('drops a field this version does not know (tolerant reader), keeping the fields of data', () => {
    expect(platformEvents.check({ ...event(), addedLater: 'x' })).toEqual({ ok: true, value: event() });
  });

  it("reads an event's position in its subject's history, optional (events published before it have none)", () => {
    expect(platformEvents.check({ ...event(), position: 9_007_199_254 })).toEqual({
      ok: true,
      value: { ...event(), position: 9_007_199_254 },
    });
    expect(platformEvents.check(event())).toEqual({ ok: true, value: event() });
    for (const [position, rule] of [
      [0, 'must be >= 1'],
      [1.5, 'must be integer'],
      ['12', 'must be integer'],
      [null, 'must be integer'],
    ] as const) {
      expect(platformEvents.check({ ...event(), position })).toEqual({
        ok: false,
        reason: `invalid platform event: /position ${rule}`,
      });
    }
  });

  it('refuses what is not JSON without quoting it', () => {
    expect(platformEvents.read(Buffer.from('{"email":"jane@example.com"'))).toEqual({
      ok: false,
      reason: 'platform event is not JSON',
    });
    expect(platformEvents.check(null)).toEqual({ ok: false, reason: 'invalid platform event: / must be object' });
  });
});

describe('delivery message contract', () => {
  it('reads a valid message with its attempt and guard headers', () => {
    expect(readDelivery(json(delivery()), { 'x-attempt': 3, 'x-guard': 1, 'x-death': [{ count: 1 }] })).toEqual({
      ok: true,
      value: { message: delivery(), attempt: 3, guard: true },
    });
    expect(readDelivery(json({ v: 1, deliveryId: ID, manual: true }), { 'x-attempt': 2 })).toEqual({
      ok: true,
      value: { message: { v: 1, deliveryId: ID, manual: true }, attempt: 2, guard: false },
    });
  });

  it('reads a message published before versioning (no v, no x-attempt) as version 1, first attempt', () => {
    expect(readDelivery(json(without(delivery(), 'v')))).toEqual({
      ok: true,
      value: { message: delivery(), attempt: 1, guard: false },
    });
  });

  it('refuses a missing field and a wrong type, saying where', () => {
    const snapshot = delivery().snapshot!;
    expect(readDelivery(json({ ...delivery(), snapshot: without(snapshot, 'body') }))).toEqual({
      ok: false,
      reason: "invalid delivery message: /snapshot must have required property 'body'",
    });
    expect(readDelivery(json(without(delivery(), 'deliveryId')))).toEqual({
      ok: false,
      reason: "invalid delivery message: / must have required property 'deliveryId'",
    });
    expect(readDelivery(json({ ...delivery(), manual: 'yes' }))).toEqual({
      ok: false,
      reason: 'invalid delivery message: /manual must be boolean',
    });
    expect(readDelivery(json({ ...delivery(), snapshot: { ...snapshot, contentType: 'xml' } }))).toEqual({
      ok: false,
      reason: 'invalid delivery message: /snapshot/contentType must be equal to one of the allowed values',
    });
  });

  it('refuses an unknown version', () => {
    expect(readDelivery(json({ ...delivery(), v: 2 }))).toEqual({
      ok: false,
      reason: 'unknown version 2 of the delivery message',
    });
  });

  it('refuses a bad x-attempt or x-guard header', () => {
    for (const [headers, reason] of [
      [{ 'x-attempt': 0 }, 'bad header x-attempt: must be >= 1'],
      [{ 'x-attempt': 1.5 }, 'bad header x-attempt: must be integer'],
      [{ 'x-attempt': '2' }, 'bad header x-attempt: must be integer'],
      [{ 'x-attempt': 2 ** 31 }, 'bad header x-attempt: must be <= 2147483647'],
      [{ 'x-attempt': 1, 'x-guard': true }, 'bad header x-guard: must be equal to constant'],
    ] as const) {
      expect(readDelivery(json(delivery()), { ...headers })).toEqual({ ok: false, reason });
    }
  });

  it('refuses what is not JSON', () => {
    expect(readDelivery(Buffer.from('not json'), { 'x-attempt': 1 })).toEqual({
      ok: false,
      reason: 'delivery message is not JSON',
    });
  });

  it("carries the event's position in the snapshot, optional, an integer >= 1", () => {
    const positioned = { ...delivery(), snapshot: { ...delivery().snapshot!, position: 42 } };
    expect(deliveryMessages.check(positioned)).toEqual({ ok: true, value: positioned });
    expect(deliveryMessages.check({ ...delivery(), snapshot: { ...delivery().snapshot!, position: 0 } })).toEqual({
      ok: false,
      reason: 'invalid delivery message: /snapshot/position must be >= 1',
    });
  });

  it('drops fields this version does not know, inside the snapshot too', () => {
    const message = { ...delivery(), addedLater: 1, snapshot: { ...delivery().snapshot!, alsoLater: 2 } };
    expect(deliveryMessages.check(message)).toEqual({ ok: true, value: delivery() });
  });
});

describe('webhook change contract', () => {
  it('reads a valid change, and one published before versioning as version 1', () => {
    expect(webhookChanges.read(json(change()))).toEqual({ ok: true, value: change() });
    expect(webhookChanges.read(json(without(change(), 'v')))).toEqual({ ok: true, value: change() });
  });

  it('refuses a missing field, a wrong type, an unknown type and an unknown version', () => {
    expect(webhookChanges.check(without(change(), 'webhookId'))).toEqual({
      ok: false,
      reason: "invalid webhook change: / must have required property 'webhookId'",
    });
    expect(webhookChanges.check({ ...change(), merchantId: 7 })).toEqual({
      ok: false,
      reason: 'invalid webhook change: /merchantId must be string',
    });
    expect(webhookChanges.check({ ...change(), type: 'webhook.exploded' })).toEqual({
      ok: false,
      reason: 'invalid webhook change: /type must be equal to constant',
    });
    expect(webhookChanges.check({ ...change(), v: 3 })).toEqual({
      ok: false,
      reason: 'unknown version 3 of the webhook change',
    });
  });
});

describe('dispatcher command contract', () => {
  const command = () => ({
    v: 1,
    type: 'delivery.resend' as const,
    deliveryId: ID,
    webhookId: OTHER_ID,
    merchantId: OTHER_ID,
    requestedAt: '2026-11-22T10:00:00.000Z',
  });

  it('reads a test and a resend', () => {
    expect(dispatcherCommands.read(json(command()))).toEqual({ ok: true, value: command() });
    const test = { ...command(), type: 'webhook.test' };
    expect(dispatcherCommands.read(json(test))).toEqual({ ok: true, value: test });
  });

  it('reads a test of a chosen kind (the event catalog’s “Send this example”) and refuses an unknown kind', () => {
    for (const eventType of EVENT_KINDS) {
      const test = { ...command(), type: 'webhook.test', eventType };
      expect(dispatcherCommands.read(json(test))).toEqual({ ok: true, value: test });
    }
    expect(dispatcherCommands.check({ ...command(), type: 'webhook.test', eventType: 'refund' })).toEqual({
      ok: false,
      reason: 'invalid dispatcher command: /eventType must be equal to one of the allowed values',
    });
  });

  it('refuses an unknown type, a missing field, a non-uuid id and an unknown version', () => {
    expect(dispatcherCommands.check({ ...command(), type: 'delivery.explode' })).toEqual({
      ok: false,
      reason: 'invalid dispatcher command: /type must be equal to one of the allowed values',
    });
    expect(dispatcherCommands.check(without(command(), 'merchantId'))).toEqual({
      ok: false,
      reason: "invalid dispatcher command: / must have required property 'merchantId'",
    });
    expect(dispatcherCommands.check({ ...command(), deliveryId: 'log-1' })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^invalid dispatcher command: \/deliveryId must match pattern/),
    });
    expect(dispatcherCommands.check({ ...command(), v: 2 })).toEqual({
      ok: false,
      reason: 'unknown version 2 of the dispatcher command',
    });
    expect(dispatcherCommands.read(Buffer.from('resend please'))).toEqual({
      ok: false,
      reason: 'dispatcher command is not JSON',
    });
  });
});

describe("a platform event's data, checked against its category's record schema (readEventSubject)", () => {
  const transaction = () => ({
    uuid: ID,
    referenceId: 'order-7',
    status: 'confirmed',
    psp: 'Payrexx Direct',
    type: 'e-commerce',
    paymentMethod: 'visa',
    amount: 1990,
    currency: 'CHF',
    integrationId: null,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
    threeDSecure: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
  });
  const withData = (category: PlatformEvent['category'], data: Record<string, unknown>): PlatformEvent => ({
    ...event(),
    category,
    data,
  });

  it('gives the renderers the record of each category', () => {
    expect(readEventSubject(withData('transaction', transaction()))).toEqual({
      ok: true,
      value: { type: 'transaction', transaction: transaction() },
    });
    const subscription = {
      id: 'sub_1',
      status: 'active',
      event: null,
      referenceId: null,
      amount: 500,
      currency: 'CHF',
      interval: 'P1M',
      integrationId: OTHER_ID,
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000+01:00',
    };
    expect(readEventSubject(withData('subscription', subscription))).toEqual({
      ok: true,
      value: { type: 'subscription', subscription },
    });
    const payout = {
      id: 'po_1',
      status: 'initialised',
      amount: 100,
      currency: 'EUR',
      createdAt: '2026-11-22T10:00:00Z',
    };
    expect(readEventSubject(withData('payout', payout))).toEqual({ ok: true, value: { type: 'payout', payout } });
  });

  it('refuses data the renderers cannot take, naming the field and never the value', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...transaction(), status: 'paid' }, '/status'],
      [{ ...transaction(), amount: 19.9 }, '/amount'],
      [{ ...transaction(), createdAt: '2026-11-22T10:00:00' }, '/createdAt'],
      [{ ...transaction(), updatedAt: 'yesterday' }, '/updatedAt'],
      [{ ...transaction(), paymentMethod: 'Visa Card' }, '/paymentMethod'],
      [{ ...transaction(), threeDSecure: { eci: '05', source: 'sms', version: null, flow: null } }, '/threeDSecure'],
      [without(transaction(), 'uuid'), '/'],
    ];
    for (const [data, path] of cases) {
      const read = readEventSubject(withData('transaction', data));
      expect(read.ok).toBe(false);
      if (read.ok) continue;
      expect(read.reason).toContain(`invalid transaction record: ${path}`);
      expect(read.reason).not.toContain('Visa Card');
    }
    expect(readEventSubject(withData('payout', { id: 'po', status: 's', amount: 1, currency: 'CHF' })).ok).toBe(false);
  });

  it('reads an operational event about a webhook (webhook.*): its record, times nullable, count for a recover', () => {
    const webhook = {
      id: OTHER_ID,
      name: 'Shop',
      url: 'https://shop.example/hook',
      state: 'disabled',
      disabledReason: 'gone',
      failingSince: '2026-11-22T10:00:00.000Z',
      lastSuccessAt: null,
      count: null,
      occurredAt: '2026-11-22T10:00:01.000Z',
    };
    expect(readEventSubject(withData('webhook', webhook))).toEqual({ ok: true, value: { type: 'webhook', webhook } });
    const recovered = { ...webhook, state: 'healthy', disabledReason: null, failingSince: null, count: 4 };
    expect(readEventSubject(withData('webhook', recovered))).toEqual({
      ok: true,
      value: { type: 'webhook', webhook: recovered },
    });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...webhook, state: 'sleeping' }, '/state'],
      [{ ...webhook, disabledReason: 'tired' }, '/disabledReason'],
      [{ ...webhook, failingSince: 'yesterday' }, '/failingSince'],
      [{ ...webhook, count: -1 }, '/count'],
      [{ ...webhook, id: 'not-a-uuid' }, '/id'],
      [without(webhook, 'occurredAt'), '/'],
    ];
    for (const [data, path] of cases) {
      const read = readEventSubject(withData('webhook', data));
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.reason).toContain(`invalid webhook record: ${path}`);
    }
  });

  it('drops what a record must never carry (a cryptogram beside the 3-D Secure result)', () => {
    const read = readEventSubject(
      withData('transaction', { ...transaction(), threeDSecure: { ...transaction().threeDSecure, cavv: 'AAAB' } }),
    );
    expect(read.ok && read.value.type === 'transaction' && read.value.transaction.threeDSecure).toEqual(
      transaction().threeDSecure,
    );
  });

  it('refuses an event whose occurredAt has no zone', () => {
    expect(platformEvents.read(json({ ...event(), occurredAt: '2026-11-22T10:00:00' })).ok).toBe(false);
  });
});
