import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AmqpClient } from '#messaging';
import { StdoutCapture, waitFor } from '#testing';
import {
  Receiver,
  closeDb,
  createMerchant,
  createWebhook,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
  publishDelivery,
} from './dispatcher.harness.js';

describe('webhook-dispatcher logs (LOG_FORMAT=json, LOG_LEVEL=debug, real RabbitMQ and PostgreSQL)', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;
  let output: StdoutCapture;
  const receiver = new Receiver();

  beforeAll(async () => {
    output = new StdoutCapture();
    await receiver.start();
    dispatcher = await startDispatcher({ LOG_FORMAT: 'json', LOG_LEVEL: 'debug' });
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await receiver.stop();
    await closeDb();
    output.restore();
  });

  const lineWith = (what: string, match: (line: Record<string, unknown>) => boolean) =>
    waitFor(() => output.jsonLines().find(match), { what });

  it('names the delivery, its event, webhook and merchant as fields of its lines, and never the secret', async () => {
    const { merchantId, integrationId } = await createMerchant();
    const hook = await createWebhook({ merchantId, url: `${receiver.url}/logged` });
    const event = transactionEvent(merchantId, integrationId);
    await publishEvents(amqp, [event]);

    const attempt = await lineWith('the attempt line', (line) => line.eventId === event.id);
    const deliveryId = receiver.to('/logged')[0].headers['webhook-id'];
    expect(attempt).toEqual(
      expect.objectContaining({
        level: 'debug',
        app: 'webhook-dispatcher',
        deliveryId,
        eventId: event.id,
        webhookId: hook.id,
        merchantId,
        attempt: 1,
        status: 200,
      }),
    );
    const signature = receiver.to('/logged')[0].headers['webhook-signature'] as string;
    for (const secret of [...hook.secrets, signature.slice(3)]) expect(output.text).not.toContain(secret);
  });

  it('names the delivery of a message whose delivery no longer exists', async () => {
    const deliveryId = randomUUID();
    await publishDelivery(amqp, { deliveryId, manual: true }, 1);
    const dropped = await lineWith('the dropped delivery', (line) => line.deliveryId === deliveryId);
    expect(dropped).toEqual(expect.objectContaining({ level: 'warn', context: 'DeliveryService' }));
  });

  it('writes nothing but JSON lines with time, level, app and msg, without colour codes', () => {
    for (const line of output.jsonLines()) {
      expect(line).toEqual(
        expect.objectContaining({
          time: expect.any(String),
          level: expect.any(String),
          app: 'webhook-dispatcher',
          msg: expect.any(String),
        }),
      );
    }
    expect(output.text).not.toContain('\x1b');
  });
});
