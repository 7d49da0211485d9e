import { describe, expect, it } from '@jest/globals';
import {
  buildWebhookHeaders,
  encodePayload,
  generateWebhookSecret,
  webhookPayloadExample,
  type PayloadObject,
  type WebhookContentType,
} from '#domain';
import { WebhookBodyChecks, expectValidWebhookBody, webhookBodyProblems } from './webhook-body.js';

/** A delivery of `tree` as the dispatcher sends it: encoded for the content type, with every header. */
function delivered(contentType: WebhookContentType, tree: PayloadObject) {
  const { body } = encodePayload(contentType, tree);
  const headers = buildWebhookHeaders({
    webhookId: '019a5e1c-2b7d-7c3e-9f10-4d2a6b8c0e11',
    timestamp: new Date(),
    body,
    secrets: [generateWebhookSecret()],
    contentType,
  });
  return { headers: headers as Record<string, string>, body };
}

const transaction = webhookPayloadExample('transaction', '2026-08-20') as { transaction: PayloadObject };
const withExtra: PayloadObject = { transaction: { ...transaction.transaction, extra: 'x' } };

describe('webhookBodyProblems', () => {
  it.each(['json', 'php-post'] as const)('passes a %s delivery as published, and names each drift', async (type) => {
    const settings = { version: '2026-08-20', contentType: type };
    expect(await webhookBodyProblems(delivered(type, transaction), settings)).toStrictEqual([]);
    expect(await webhookBodyProblems(delivered(type, withExtra), settings)).toStrictEqual([
      'body/transaction must NOT have additional properties',
    ]);
    // The body of the other version, sent to this webhook.
    const older = webhookPayloadExample('transaction', '2025-01-15');
    expect(await webhookBodyProblems(delivered(type, older), settings)).toStrictEqual([
      "body/transaction must have required property '3dsecure'",
    ]);
    const { headers, body } = delivered(type, transaction);
    const { 'webhook-id': _id, ...withoutId } = headers;
    expect(await webhookBodyProblems({ headers: withoutId, body }, settings)).toStrictEqual([
      'header webhook-id must be string',
    ]);
    const other = type === 'json' ? 'php-post' : 'json';
    expect(await webhookBodyProblems({ headers, body }, { ...settings, contentType: other })).toContain(
      `header content-type is not ${encodePayload(other, transaction).contentType}`,
    );
  });

  it('refuses a body without one event key, or one that is not JSON, and unknown settings', async () => {
    const json = { version: '2025-01-15', contentType: 'json' };
    expect(await webhookBodyProblems({ body: '{"refund":{}}' }, json)).toStrictEqual([
      'the body has no single key transaction, subscription or payout: [refund]',
    ]);
    expect(await webhookBodyProblems({ body: '{"n":1' }, json)).toHaveLength(1);
    expect(await webhookBodyProblems({ body: '{}' }, { version: '2024-01-01', contentType: 'json' })).toStrictEqual([
      'no such webhook settings: version 2024-01-01, content type json',
    ]);
    await expect(expectValidWebhookBody({ body: Buffer.from('[]') }, json)).rejects.toThrow(
      /not as its schema says:\n {2}the body has no single key/,
    );
  });
});

describe('WebhookBodyChecks', () => {
  it('reports every failed body, including one from a webhook the receiver does not know', async () => {
    const checks = new WebhookBodyChecks();
    const settings = { version: '2026-08-20', contentType: 'php-post' };
    checks.check(delivered('php-post', transaction), settings, '/ok');
    await expect(checks.assertValid()).resolves.toBeUndefined();
    checks.check(delivered('php-post', withExtra), settings, '/extra');
    checks.check(delivered('json', transaction), undefined, '/unknown');
    expect(checks.count).toBe(3);
    await expect(checks.assertValid()).rejects.toThrow(
      /^2 of 3 webhook bodies failed:\n\/extra: .*\n(.|\n)*\/unknown: no webhook is known to be served here/,
    );
  });
});
