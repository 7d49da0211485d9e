import { describe, expect, it } from '@jest/globals';
import { SAMPLE_SUBJECTS } from '#domain';
import { aboutItselfWhileDisabled, webhookMatches } from './webhook-matcher.js';

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

  it('an event about a webhook belongs to its integration: linked webhooks hear of their integration’s webhooks', () => {
    const about = { merchantId: 'm1', category: 'webhook' as const, integrationId: 'i1' };
    expect(webhookMatches({ ...webhook, events: ['webhook'] }, about)).toBe(true);
    expect(webhookMatches({ ...webhook, events: ['webhook'], integrationId: 'i1' }, about)).toBe(true);
    expect(webhookMatches({ ...webhook, events: ['webhook'], integrationId: 'i2' }, about)).toBe(false);
  });
});

describe('aboutItselfWhileDisabled', () => {
  const about = { category: 'webhook' as const, subjectId: 'w1' };
  it('holds back an event about a webhook from that webhook while it is disabled, and only then', () => {
    expect(aboutItselfWhileDisabled({ id: 'w1', enabled: false }, about)).toBe(true);
    expect(aboutItselfWhileDisabled({ id: 'w1', enabled: true }, about)).toBe(false);
    expect(aboutItselfWhileDisabled({ id: 'w2', enabled: false }, about)).toBe(false);
    expect(aboutItselfWhileDisabled({ id: 'w1', enabled: false }, { category: 'payout', subjectId: 'w1' })).toBe(false);
    // The event tells it is disabled before this process's cache has heard of it.
    const disabled = { type: 'webhook' as const, webhook: { ...SAMPLE_SUBJECTS.webhook.webhook, id: 'w1' } };
    expect(aboutItselfWhileDisabled({ id: 'w1', enabled: true }, about, disabled)).toBe(true);
    const enabled = { type: 'webhook' as const, webhook: { ...disabled.webhook, state: 'healthy' as const } };
    expect(aboutItselfWhileDisabled({ id: 'w1', enabled: true }, about, enabled)).toBe(false);
  });
});
