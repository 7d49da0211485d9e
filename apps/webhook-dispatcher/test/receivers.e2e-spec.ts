import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { AmqpClient } from '#messaging';
import { WebhookBodyChecks, waitFor } from '#testing';
import {
  closeDb,
  createMerchant,
  createWebhook,
  logsOf,
  moveWebhook,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
  webhookServedAt,
} from './dispatcher.harness.js';
import { startPhpReceiver } from './php-receiver.js';

describe('real receivers verify what the dispatcher sends', () => {
  let dispatcher: INestApplication;
  let amqp: AmqpClient;

  beforeAll(async () => {
    dispatcher = await startDispatcher();
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await dispatcher.close();
    await amqp.close();
    await closeDb();
  });

  it('a PHP receiver (php -S) checks x-webhook-signature with hash_hmac and reads $_POST[transaction][3dsecure][eci]', async () => {
    const { merchantId, integrationId } = await createMerchant();
    // The secret is generated per webhook, so the PHP receiver starts once we know it.
    const hook = await createWebhook({ merchantId, url: 'http://127.0.0.1:1/placeholder', contentType: 'php-post' });
    const php = await startPhpReceiver(hook.secret);
    try {
      await moveWebhook(hook.id, php.url);
      const { publishWebhookChanged } = await import('#messaging');
      await publishWebhookChanged(amqp, { webhookId: hook.id, merchantId });
      await new Promise((resolve) => setTimeout(resolve, 150));
      await publishEvents(amqp, [
        transactionEvent(merchantId, integrationId, {
          referenceId: 'Bestellung #42 & Co. [Ü]',
          threeDSecure: { eci: '02', source: '3ds', version: '2.2.0', flow: 'frictionless' },
        }),
      ]);
      const [log] = await waitFor(
        async () => {
          const logs = await logsOf(hook.id);
          return logs.length ? logs : undefined;
        },
        { what: 'the PHP receiver to answer' },
      );
      expect(log.status).toBe(200);
      expect(JSON.parse(log.response_excerpt ?? '{}')).toEqual({
        eci: '02',
        flow: 'frictionless',
        referenceId: 'Bestellung #42 & Co. [Ü]',
        amount: '1990',
      });
    } finally {
      await php.stop();
    }
  });

  it('a Node receiver verifies with the standardwebhooks package, JSON and PHP-Post alike', async () => {
    const { merchantId, integrationId } = await createMerchant();
    const verified: string[] = [];
    const secrets = new Map<string, string>();
    const bodies = new WebhookBodyChecks();
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        bodies.check({ headers: req.headers, body }, webhookServedAt(`${base}${req.url}`), req.url ?? '');
        try {
          new Webhook(secrets.get(req.url ?? '')!).verify(body, req.headers as Record<string, string>, {
            jsonParse: false,
          });
          verified.push(req.url ?? '');
          res.writeHead(200).end();
        } catch {
          res.writeHead(401).end('bad signature');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const json = await createWebhook({ merchantId, url: `${base}/json` });
      const form = await createWebhook({ merchantId, url: `${base}/form`, contentType: 'php-post' });
      secrets.set('/json', json.secret);
      secrets.set('/form', form.secret);
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
      await waitFor(() => verified.length === 2, { what: 'both deliveries verified' });
      expect(verified.sort()).toEqual(['/form', '/json']);
      await bodies.assertValid();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
