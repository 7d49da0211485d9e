import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { listen } from './http-app.harness.js';

/** The e2e checks every app shares: /health/live, /health/ready backed by real dependencies, RFC 9457 404s. */
export function healthSuite(name: string, createApp: () => Promise<INestApplication>): void {
  describe(`${name} health (e2e over HTTP)`, () => {
    let app: INestApplication;
    let baseUrl: string;

    beforeAll(async () => {
      app = await createApp();
      baseUrl = await listen(app);
    });
    afterAll(async () => {
      await app.close();
    });

    it('is live', async () => {
      const response = await fetch(`${baseUrl}/health/live`);
      expect(response.status).toBe(200);
    });

    it('is ready only because PostgreSQL and RabbitMQ both answer', async () => {
      const response = await fetch(`${baseUrl}/health/ready`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as { status: string; info: Record<string, { status: string }> };
      expect(body.status).toBe('ok');
      expect(body.info.database.status).toBe('up');
      expect(body.info.rabbitmq.status).toBe('up');
    });

    it('answers an unknown route with an RFC 9457 problem', async () => {
      const response = await fetch(`${baseUrl}/no/such/route`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(await response.json()).toMatchObject({ status: 404, title: 'Not found', type: 'urn:problem:not-found' });
    });
  });
}
