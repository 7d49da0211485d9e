import { afterAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { appTestEnv, metricsSuite, testEnv } from '#testing';
import { loadTransactionApiConfig } from '../src/config/transaction-api.config.js';
import { RELAY_LOCK_KEY } from '../src/outbox/outbox.relay.js';
import { createTransactionApiApp } from '../src/transaction-api.app.js';

/** Holds the relay's lock while the suite runs: this app's relay publishes nothing, so an event stays unpublished. */
const relayLock = new pg.Client({ connectionString: testEnv().databaseUrl });
const uuid = randomUUID();

metricsSuite(
  'transaction-api',
  async () => {
    await relayLock.connect();
    await relayLock.query('SELECT pg_advisory_lock($1)', [RELAY_LOCK_KEY]);
    return createTransactionApiApp(loadTransactionApiConfig(appTestEnv()));
  },
  {
    traffic: async (baseUrl) => {
      await fetch(`${baseUrl}/v1.17/transactions/${uuid}`); // no API key: 401
    },
    more: ({ scrape }) => {
      afterAll(async () => {
        await relayLock.end();
      });

      it('counts the read API under its route template, without the uuid', async () => {
        const text = await scrape();
        expect(text).toMatch(
          /^http_request_duration_seconds_count\{method="GET",route="\/v[^"/]*\/transactions\/:uuid",status="401"\} 1$/m,
        );
        expect(text).not.toContain(uuid);
      });

      it('reports the outbox backlog and the age of the first unpublished event, read when scraped', async () => {
        const value = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
        const before = value(await scrape(), 'outbox_events_unpublished');
        expect(before).toBeGreaterThanOrEqual(0);
        // An hour-old event first in publishing order (a seq below every other).
        const id = randomUUID();
        await relayLock.query(
          `INSERT INTO outbox_event (seq, id, type, subject_id, payload, created_at) OVERRIDING SYSTEM VALUE
           SELECT coalesce(min(seq), 0) - 1, $1, 'transaction.created', $1, '{}', now() - interval '1 hour'
             FROM outbox_event`,
          [id],
        );
        try {
          const text = await scrape();
          expect(value(text, 'outbox_events_unpublished')).toBe(before + 1);
          expect(value(text, 'outbox_oldest_unpublished_event_age_seconds')).toBeGreaterThanOrEqual(3_600);
          expect(value(text, 'outbox_oldest_unpublished_event_age_seconds')).toBeLessThan(3_660);
        } finally {
          await relayLock.query('DELETE FROM outbox_event WHERE id = $1', [id]);
        }
        expect(value(await scrape(), 'outbox_events_unpublished')).toBe(before);
      });
    },
  },
);
