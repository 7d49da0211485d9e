import { describe, expect, it } from '@jest/globals';
import { API_VERSIONS, LATEST_API_VERSION, THREE_D_SECURE_SINCE_API_VERSION } from './api-version.js';
import {
  EVENT_KIND_OPTIONS,
  EVENT_KINDS,
  EVENT_KINDS_WITHOUT_INTEGRATION,
  PLATFORM_EVENT_TYPES,
  SUPERSEDING_EVENT_KINDS,
  eventKindOf,
  isEventKind,
} from './event-kinds.js';
import { SUBSCRIPTION_EVENTS } from './record.shapes.js';
import { LATEST_WEBHOOK_VERSION, WEBHOOK_EVENT_TYPES, WEBHOOK_VERSIONS } from './webhook-version.js';
import { webhookPayloadDocs } from './webhook-schema.js';

// What CONTRACT.md says, written out here on purpose: the definition must keep deriving exactly this.
describe('event kinds (one definition, event-kinds.ts)', () => {
  it('are transaction, subscription, payout and webhook, in that order; a webhook may select each', () => {
    expect(EVENT_KINDS).toStrictEqual(['transaction', 'subscription', 'payout', 'webhook']);
    expect(WEBHOOK_EVENT_TYPES).toBe(EVENT_KINDS);
    expect(Object.isFrozen(EVENT_KINDS)).toBe(true);
  });

  it('give the platform event types, <kind>.<type>, a subscription one per subscription event', () => {
    expect(PLATFORM_EVENT_TYPES).toStrictEqual([
      'transaction.created',
      'transaction.status_changed',
      'subscription.created',
      ...SUBSCRIPTION_EVENTS.map((event) => `subscription.${event}`),
      'payout.created',
      'webhook.failing',
      'webhook.disabled',
      'webhook.enabled',
      'webhook.recovered',
    ]);
    for (const type of PLATFORM_EVENT_TYPES) expect(EVENT_KINDS).toContain(eventKindOf(type));
    expect(eventKindOf('subscription.payment_failed')).toBe('subscription');
  });

  it('say which kinds supersede repeats (CONTRACT §5): transactions and subscriptions, not payouts nor webhooks', () => {
    expect(SUPERSEDING_EVENT_KINDS).toStrictEqual(['transaction', 'subscription']);
  });

  it('say which kinds belong to no integration: payouts', () => {
    expect(EVENT_KINDS_WITHOUT_INTEGRATION).toStrictEqual(['payout']);
  });

  it('carry their UI wording, one option per kind in order', () => {
    expect(EVENT_KIND_OPTIONS.map((option) => option.type)).toStrictEqual([...EVENT_KINDS]);
    for (const option of EVENT_KIND_OPTIONS) {
      expect(option.label).toMatch(/^[A-Z]\w+s$/);
      expect(option.hint.length).toBeGreaterThan(10);
    }
  });

  it('guard kinds exactly', () => {
    expect(EVENT_KINDS.every(isEventKind)).toBe(true);
    for (const other of ['Transaction', 'refund', '', 'transaction.created', undefined, 1]) {
      expect(isEventKind(other)).toBe(false);
    }
  });

  it('document a payload per kind and payload version', () => {
    expect(webhookPayloadDocs().map((doc) => `${doc.eventType}-${doc.version}`)).toStrictEqual(
      WEBHOOK_VERSIONS.flatMap((version) => EVENT_KINDS.map((kind) => `${kind}-${version}`)),
    );
  });
});

describe('the newest versions, named once (the last of their lists)', () => {
  it('read API: 1.17, 3dsecure from 1.17', () => {
    expect(LATEST_API_VERSION).toBe(API_VERSIONS.at(-1));
    expect(LATEST_API_VERSION).toBe('1.17');
    expect(THREE_D_SECURE_SINCE_API_VERSION).toBe('1.17');
  });

  it('webhook payload: 2026-08-20', () => {
    expect(LATEST_WEBHOOK_VERSION).toBe(WEBHOOK_VERSIONS.at(-1));
    expect(LATEST_WEBHOOK_VERSION).toBe('2026-08-20');
  });
});
