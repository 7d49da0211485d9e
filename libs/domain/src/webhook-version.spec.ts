import { describe, expect, it } from '@jest/globals';
import { payoutRecord, subscriptionRecord, transactionRecord, webhookRecord } from '../test/fixtures.js';
import { renderTransaction } from './api-version.js';
import {
  LATEST_WEBHOOK_VERSION,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_RENDERERS,
  WEBHOOK_VERSIONS,
  isWebhookEventType,
  isWebhookVersion,
  renderWebhookPayload,
  type WebhookSubject,
} from './webhook-version.js';

describe('webhook versions', () => {
  it('offers 2025-01-15 and 2026-08-20, the newest being the default', () => {
    expect(WEBHOOK_VERSIONS).toStrictEqual(['2025-01-15', '2026-08-20']);
    expect(LATEST_WEBHOOK_VERSION).toBe('2026-08-20');
    expect(Object.keys(WEBHOOK_RENDERERS)).toStrictEqual([...WEBHOOK_VERSIONS]);
  });

  it('guards versions and event types exactly', () => {
    expect(isWebhookVersion('2025-01-15')).toBe(true);
    expect(isWebhookVersion('2026-08-21')).toBe(false);
    expect(isWebhookVersion('20260820')).toBe(false);
    expect(isWebhookVersion(undefined)).toBe(false);
    expect(WEBHOOK_EVENT_TYPES).toStrictEqual(['transaction', 'subscription', 'payout', 'webhook']);
    expect(isWebhookEventType('payout')).toBe(true);
    expect(isWebhookEventType('Payout')).toBe(false);
    expect(isWebhookEventType(1)).toBe(false);
  });
});

describe('renderWebhookPayload — transaction', () => {
  it('2026-08-20 carries the API 1.17 object, 3dsecure included', () => {
    const payload = renderWebhookPayload('2026-08-20', { type: 'transaction', transaction: transactionRecord });
    expect(Object.keys(payload)).toStrictEqual(['transaction']);
    expect(payload.transaction).toStrictEqual(renderTransaction('1.17', transactionRecord));
    expect(payload.transaction['3dsecure']).toStrictEqual({
      eci: '05',
      source: '3ds',
      version: '2.2.0',
      flow: 'challenge',
    });
  });

  it('2026-08-20 sends "3dsecure": null when there is none', () => {
    const payload = renderWebhookPayload('2026-08-20', {
      type: 'transaction',
      transaction: { ...transactionRecord, threeDSecure: null },
    });
    expect(JSON.stringify(payload)).toContain('"3dsecure":null');
  });

  it('2025-01-15 carries the object without a 3dsecure key', () => {
    const payload = renderWebhookPayload('2025-01-15', { type: 'transaction', transaction: transactionRecord });
    expect(payload.transaction).toStrictEqual(renderTransaction('1.16', transactionRecord));
    expect('3dsecure' in payload.transaction).toBe(false);
    expect(JSON.stringify(payload)).not.toContain('3dsecure');
  });
});

describe.each(WEBHOOK_VERSIONS)('renderWebhookPayload %s — subscription and payout', (version) => {
  it('renders the subscription with exactly its ten keys', () => {
    const payload = renderWebhookPayload(version, { type: 'subscription', subscription: subscriptionRecord });
    expect(payload).toStrictEqual({
      subscription: {
        id: '4c1f9f6e-8a0d-4c7b-a0f5-5f3f2a1b9c77',
        status: 'active',
        event: 'renewed',
        referenceId: 'abo-17',
        amount: 4900,
        currency: 'EUR',
        interval: 'P1M',
        integrationId: null,
        createdAt: '2026-01-01T08:00:00.000Z',
        updatedAt: '2026-11-01T08:00:00.123Z',
      },
    });
    expect(Object.keys(payload.subscription)).toStrictEqual([
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
    ]);
  });

  it('renders absent nullable subscription fields as null', () => {
    const payload = renderWebhookPayload(version, {
      type: 'subscription',
      subscription: { ...subscriptionRecord, event: null, referenceId: null },
    });
    expect(payload.subscription.event).toBeNull();
    expect(payload.subscription.referenceId).toBeNull();
  });

  it('renders the payout with exactly its five keys and no extra record fields', () => {
    const payout = { ...payoutRecord, merchantId: 'internal-merchant' };
    const payload = renderWebhookPayload(version, { type: 'payout', payout });
    expect(payload).toStrictEqual({
      payout: {
        id: '9e0c3c8e-1d2b-4f5a-8e6d-7c4b3a2f1e0d',
        status: 'initialised',
        amount: 125000,
        currency: 'CHF',
        createdAt: '2026-11-22T23:59:59.999Z',
      },
    });
    expect(Object.keys(payload.payout)).toStrictEqual(['id', 'status', 'amount', 'currency', 'createdAt']);
  });
});

describe.each(WEBHOOK_VERSIONS)('renderWebhookPayload %s — webhook (operational events)', (version) => {
  it('renders the webhook with exactly its keys in contract order, dates in UTC, no extra record fields', () => {
    const webhook = { ...webhookRecord, secret: 'whsec_never', merchantId: 'internal-merchant' };
    const payload = renderWebhookPayload(version, { type: 'webhook', webhook });
    expect(payload).toStrictEqual({
      webhook: {
        id: '2d7c4e1a-5b3f-4a8e-9d60-1f2e3a4b5c6d',
        name: 'Shop orders',
        url: 'https://shop.example.com/webhooks/payments',
        state: 'disabled',
        disabledReason: 'failing',
        failingSince: '2026-11-19T08:15:00.000Z',
        lastSuccessAt: '2026-11-19T08:14:58.310Z',
        count: null,
        occurredAt: '2026-11-22T08:15:02.000Z',
      },
    });
  });

  it('renders an enabled webhook (no reason, no failure) and a recover with its count', () => {
    const payload = renderWebhookPayload(version, {
      type: 'webhook',
      webhook: {
        ...webhookRecord,
        state: 'healthy',
        disabledReason: null,
        failingSince: null,
        lastSuccessAt: null,
        count: 17,
        occurredAt: '2026-11-22T09:15:02+01:00',
      },
    });
    expect(payload.webhook).toMatchObject({
      state: 'healthy',
      disabledReason: null,
      failingSince: null,
      lastSuccessAt: null,
      count: 17,
      occurredAt: '2026-11-22T08:15:02.000Z',
    });
  });

  it('refuses an invalid time, naming the field', () => {
    expect(() =>
      renderWebhookPayload(version, { type: 'webhook', webhook: { ...webhookRecord, failingSince: 'soon' } }),
    ).toThrow(new RangeError('failingSince is not a valid date'));
  });
});

describe('renderWebhookPayload — junk', () => {
  it('rejects an unknown version', () => {
    expect(() => renderWebhookPayload('2024-01-01' as '2025-01-15', { type: 'payout', payout: payoutRecord })).toThrow(
      new RangeError('Unknown webhook version: 2024-01-01'),
    );
  });

  it('rejects an unknown subject type', () => {
    expect(() =>
      renderWebhookPayload('2026-08-20', { type: 'refund', refund: {} } as unknown as WebhookSubject),
    ).toThrow(new RangeError('Unknown webhook event type: refund'));
  });
});
