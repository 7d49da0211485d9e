import { describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, sampleSubjectOf } from '#domain';
import type { PlatformEvent } from '#messaging';
import { cliEventFrame, cliWebhookId } from './cli-event.request.js';
import { droppedNotice } from './cli-session.gateway.js';

const secret = generateWebhookSecret();
const session = {
  id: '01a222dd-6207-7e5f-9183-6b7d9191c090',
  version: '2026-08-20',
  contentType: 'json',
  secret,
} as const;

function event(overrides: Partial<PlatformEvent> = {}): PlatformEvent {
  const subject = sampleSubjectOf('transaction', {
    id: '0b8a6a3e-3f53-4d7e-9c1f-0d1f1c6a9e22',
    at: '2026-11-28T10:00:00.000Z',
    integrationId: '6f1c1d34-0a3b-4bcb-9c43-2d7e0b8f4c10',
    referenceId: 'order-1',
  });
  return {
    v: 1,
    id: '01a222dd-6e83-71f9-b50c-875249c5bc8a',
    type: 'transaction.created',
    category: 'transaction',
    merchantId: '8ce3944d-e1ed-4e88-be37-b3867a732f32',
    integrationId: '6f1c1d34-0a3b-4bcb-9c43-2d7e0b8f4c10',
    occurredAt: '2026-11-28T10:00:00.000Z',
    subjectId: subject.transaction.uuid,
    data: subject.transaction as unknown as Record<string, unknown>,
    ...overrides,
  };
}
const content = (value: unknown) => Buffer.from(JSON.stringify(value));

describe('a platform event as a listening session receives it', () => {
  it('is the webhook request of its version and content type, signed with the session’s secret', () => {
    const read = cliEventFrame(content(event()), session, new Date());
    if (!read.ok) throw new Error(read.reason);
    const { frame } = read;
    expect(frame).toMatchObject({
      type: 'event',
      eventId: event().id,
      eventType: 'transaction.created',
      subjectId: '0b8a6a3e-3f53-4d7e-9c1f-0d1f1c6a9e22',
      referenceId: 'order-1',
    });
    const body = new Webhook(secret).verify(frame.request.body, frame.request.headers) as {
      transaction: Record<string, unknown>;
    };
    expect(body.transaction).toMatchObject({ uuid: frame.subjectId, '3dsecure': { eci: '05' } });
    expect(frame.request.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'payments-webhooks/1.0',
      'webhook-id': frame.id,
    });
  });

  it('in PHP-Post and the oldest version: the form body, no 3dsecure', () => {
    const read = cliEventFrame(content(event()), { ...session, version: '2025-01-15', contentType: 'php-post' });
    if (!read.ok) throw new Error(read.reason);
    expect(read.frame.request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(decodeURIComponent(read.frame.request.body)).toContain('transaction[referenceId]=order-1');
    expect(read.frame.request.body).not.toContain('3dsecure');
  });

  it('has one webhook-id per event and session, the same every time', () => {
    const first = cliWebhookId(session.id, event().id);
    expect(cliWebhookId(session.id, event().id)).toBe(first);
    expect(cliWebhookId('01a222dd-6207-7e5f-9183-6b7d9191c091', event().id)).not.toBe(first);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('refuses what is not a platform event, saying why without its content', () => {
    expect(cliEventFrame(Buffer.from('not json {"cvv":"123"}'), session)).toEqual({
      ok: false,
      reason: expect.not.stringContaining('123'),
    });
    const bad = cliEventFrame(content(event({ data: { uuid: 'secret-value' } })), session);
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).not.toContain('secret-value');
  });
});

describe('the notice of events dropped while away', () => {
  it('is given only when nobody was connected for longer than events wait (5 minutes)', () => {
    const since = new Date('2026-11-28T10:00:00Z');
    expect(droppedNotice(since, new Date('2026-11-28T10:05:00Z'))).toBeUndefined();
    expect(droppedNotice(since, new Date('2026-11-28T10:05:01Z'))).toMatch(
      /from 2026-11-28T10:00:00.000Z to 2026-11-28T10:05:01.000Z.*dropped/,
    );
  });
});
