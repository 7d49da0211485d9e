import { describe, expect, it } from '@jest/globals';
import { EVENT_KINDS } from './event-kinds.js';
import { SAMPLE_SUBJECTS, sampleSubjectOf } from './event-samples.js';
import { webhookPayloadExample } from './webhook-schema.js';
import { LATEST_WEBHOOK_VERSION, renderWebhookPayload } from './webhook-version.js';

describe('the sample events (one per kind)', () => {
  it('exist for every kind, and are what the OpenAPI examples render', () => {
    expect(Object.keys(SAMPLE_SUBJECTS)).toEqual([...EVENT_KINDS]);
    for (const kind of EVENT_KINDS) {
      expect(SAMPLE_SUBJECTS[kind].type).toBe(kind);
      expect(webhookPayloadExample(kind, LATEST_WEBHOOK_VERSION)).toEqual(
        renderWebhookPayload(LATEST_WEBHOOK_VERSION, SAMPLE_SUBJECTS[kind]),
      );
    }
  });

  it('become an event of their own: its id and times, its integration and reference where the kind has them', () => {
    const event = { id: 'b7a1c6de-0000-4000-8000-000000000001', at: '2026-11-28T10:00:00.000Z' };
    const { transaction } = sampleSubjectOf('transaction', { ...event, integrationId: null, referenceId: 'order-1' });
    expect(transaction).toEqual({
      ...SAMPLE_SUBJECTS.transaction.transaction,
      uuid: event.id,
      createdAt: event.at,
      updatedAt: event.at,
      integrationId: null,
      referenceId: 'order-1',
    });
    const { subscription } = sampleSubjectOf('subscription', { ...event, integrationId: 'i-1' });
    expect(subscription).toMatchObject({ id: event.id, integrationId: 'i-1', referenceId: 'abo-17', amount: 4900 });
    // Payouts belong to no integration and have no reference.
    const { payout } = sampleSubjectOf('payout', { ...event, integrationId: 'i-1', referenceId: 'x' });
    expect(payout).toEqual({ ...SAMPLE_SUBJECTS.payout.payout, id: event.id, createdAt: event.at });
    // The event about a webhook: its id and time; its integration is the event's, not the record's.
    const { webhook } = sampleSubjectOf('webhook', { ...event, integrationId: 'i-1', referenceId: 'x' });
    expect(webhook).toEqual({ ...SAMPLE_SUBJECTS.webhook.webhook, id: event.id, occurredAt: event.at });
    // The sample itself is left as it was.
    expect(SAMPLE_SUBJECTS.transaction.transaction.uuid).toBe('0b8a6a3e-3f53-4d7e-9c1f-0d1f1c6a9e21');
  });
});
