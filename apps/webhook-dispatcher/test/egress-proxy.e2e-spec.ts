import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import type { AmqpClient } from '#messaging';
import { freePort, waitFor } from '#testing';
import {
  closeDb,
  createMerchant,
  createWebhook,
  logsOf,
  publishEvents,
  startDispatcher,
  testAmqp,
  transactionEvent,
} from './dispatcher.harness.js';
import {
  startLocalhostReceiver,
  startTinyproxy,
  type LocalhostReceiver,
  type Tinyproxy,
} from './egress-proxy.harness.js';

/**
 * WEBHOOK_EGRESS_PROXY with a real forward proxy (tinyproxy): deliveries leave through it, to the address the
 * dispatcher resolved and checked itself. One dispatcher at a time (they would compete for the queue).
 */
describe('deliveries through an egress proxy (e2e)', () => {
  let amqp: AmqpClient;
  let proxy: Tinyproxy;
  let receiver: LocalhostReceiver;

  beforeAll(async () => {
    proxy = await startTinyproxy();
    receiver = await startLocalhostReceiver('http');
    amqp = testAmqp();
    await amqp.waitForConnect();
  });
  afterAll(async () => {
    await amqp?.close();
    await receiver?.stop();
    await proxy?.stop();
    await closeDb();
  });
  const arrivedAt = (path: string) => receiver.requests.filter((request) => request.path === path);

  /** The log entries of `hookId` once `count` are written. */
  const logsWhen = (hookId: string, count: number, what: string) =>
    waitFor(
      async () => {
        const logs = await logsOf(hookId);
        return logs.length >= count ? logs : undefined;
      },
      { what },
    );

  describe('with WEBHOOK_ALLOW_PRIVATE_TARGETS=true (receivers on loopback)', () => {
    let dispatcher: INestApplication;
    let tls: LocalhostReceiver;

    beforeAll(async () => {
      tls = await startLocalhostReceiver('https');
      tls.trust();
      dispatcher = await startDispatcher({ WEBHOOK_EGRESS_PROXY: proxy.url });
    });
    afterAll(async () => {
      await dispatcher?.close();
      await tls?.stop();
    });

    it('an http and an https webhook named by host name are delivered through the proxy, tunnelled to the checked address', async () => {
      const { merchantId, integrationId } = await createMerchant();
      const port = new URL(receiver.url).port;
      const tlsPort = new URL(tls.url).port;
      const plain = await createWebhook({ merchantId, url: `${receiver.url}/via-proxy` });
      const secure = await createWebhook({ merchantId, url: `${tls.url}/via-proxy` });
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);

      const [[plainLog], [secureLog]] = await Promise.all([
        logsWhen(plain.id, 1, 'the http delivery'),
        logsWhen(secure.id, 1, 'the https delivery'),
      ]);
      expect([plainLog.status, plainLog.error, secureLog.status, secureLog.error]).toEqual([200, null, 200, null]);
      expect(receiver.requests).toEqual([{ path: '/via-proxy', host: `localhost:${port}` }]);
      expect(tls.requests).toEqual([{ path: '/via-proxy', host: `localhost:${tlsPort}`, servername: 'localhost' }]);
      // The proxy was asked for the address, never the name: it resolved nothing itself.
      expect(proxy.requests()).toEqual(
        expect.arrayContaining([`CONNECT 127.0.0.1:${port} HTTP/1.1`, `CONNECT 127.0.0.1:${tlsPort} HTTP/1.1`]),
      );
      expect(proxy.requests().filter((request) => request.includes('localhost'))).toEqual([]);
    });
  });

  describe('with WEBHOOK_ALLOW_PRIVATE_TARGETS=false (as in production)', () => {
    let dispatcher: INestApplication;

    beforeAll(async () => {
      dispatcher = await startDispatcher({ WEBHOOK_EGRESS_PROXY: proxy.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    });
    afterAll(async () => {
      await dispatcher?.close();
    });

    it('a webhook whose host resolves to loopback is refused by the dispatcher: the proxy sees no connection', async () => {
      const { merchantId, integrationId } = await createMerchant();
      const before = proxy.connections();
      const hook = await createWebhook({ merchantId, url: `${receiver.url}/refused` });
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
      const [log] = await logsWhen(hook.id, 1, 'the blocked attempt');
      expect(log.status).toBe(0);
      expect(log.error).toMatch(/^Blocked: localhost resolves only to private or loopback addresses/);
      expect(proxy.connections()).toBe(before);
      expect(arrivedAt('/refused')).toHaveLength(0);
    });
  });

  describe('the egress proxy is down', () => {
    let dispatcher: INestApplication;

    beforeAll(async () => {
      dispatcher = await startDispatcher({ WEBHOOK_EGRESS_PROXY: `http://127.0.0.1:${await freePort()}` });
    });
    afterAll(async () => {
      await dispatcher?.close();
    });

    it('each attempt fails saying so, and is repeated per the retry policy (10 repeats, then parked)', async () => {
      const { merchantId, integrationId } = await createMerchant();
      const hook = await createWebhook({ merchantId, url: `${receiver.url}/proxy-down`, retryOnError: true });
      await publishEvents(amqp, [transactionEvent(merchantId, integrationId)]);
      const logs = await logsWhen(hook.id, 11, 'eleven attempts');
      expect(logs.map((log) => log.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      for (const log of logs) {
        expect([log.status, log.error]).toEqual([
          0,
          'Egress proxy unreachable: connection refused — a problem on our side, not at your server',
        ]);
      }
      expect(logs.slice(0, 10).every((log) => log.next_attempt_at !== null)).toBe(true);
      expect(logs[10].next_attempt_at).toBeNull();
      expect(arrivedAt('/proxy-down')).toHaveLength(0);
    }, 30_000);
  });
});
