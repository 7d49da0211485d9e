import { describe, expect, it } from '@jest/globals';
import { webhookMatches } from './webhook-matcher.js';

const webhook = { merchantId: 'm1', events: ['transaction', 'payout'] as const, integrationId: null };
const event = { merchantId: 'm1', category: 'transaction' as const, integrationId: 'i1' };

describe('webhookMatches', () => {
  it('fires for the merchant’s events of a selected type', () => {
    expect(webhookMatches({ ...webhook, events: [...webhook.events] }, event)).toBe(true);
  });

  it('never fires for another merchant', () => {
    expect(webhookMatches({ ...webhook, events: [...webhook.events] }, { ...event, merchantId: 'm2' })).toBe(false);
  });

  it('skips event types the webhook did not select', () => {
    expect(webhookMatches({ ...webhook, events: ['payout'] }, event)).toBe(false);
  });

  it('a webhook linked to an integration fires only for that integration', () => {
    const linked = { ...webhook, events: ['transaction' as const, 'payout' as const], integrationId: 'i1' };
    expect(webhookMatches(linked, event)).toBe(true);
    expect(webhookMatches(linked, { ...event, integrationId: 'i2' })).toBe(false);
    expect(webhookMatches(linked, { ...event, integrationId: null })).toBe(false);
  });

  it('payouts belong to no integration: only unlinked webhooks get them', () => {
    const payout = { merchantId: 'm1', category: 'payout' as const, integrationId: null };
    expect(webhookMatches({ ...webhook, events: ['payout'] }, payout)).toBe(true);
    expect(webhookMatches({ ...webhook, events: ['payout'], integrationId: 'i1' }, payout)).toBe(false);
  });
});
