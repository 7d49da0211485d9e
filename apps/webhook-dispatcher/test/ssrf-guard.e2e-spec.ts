import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { AmqpClient } from '#messaging';
import { waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  logsOf,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';

describe('connect-time SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.start();
    dispatcher = await startDispatcher({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
  });

  it.each([
    [
      'an IP literal on loopback',
      (port: string) => `http://127.0.0.1:${port}/literal`,
      /^Blocked: 127\.0\.0\.1 is a private or loopback address/,
    ],
    [
      'a host name that resolves to loopback (what DNS rebinding would do)',
      (port: string) => `http://localhost:${port}/named`,
      /^Blocked: localhost resolves only to private or loopback addresses/,
    ],
    ['an IPv4-mapped IPv6 loopback', (port: string) => `http://[::ffff:127.0.0.1]:${port}/mapped`, /^Blocked: /],
  ])('refuses %s at connect time, logging status 0', async (_name, url, error) => {
    const { merchantId, integrationId } = await createMerchant();
    const port = new URL(receiver.url).port;
    const hook = await createWebhook({ merchantId, url: url(port) });
    await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
    const [log] = await waitFor(
      async () => {
        const logs = await logsOf(hook.id);
        return logs.length ? logs : undefined;
      },
      { what: 'the blocked attempt' },
    );
    expect(log.status).toBe(0);
    expect(log.error).toMatch(error);
    expect(receiver.requests).toHaveLength(0);
  });
});
