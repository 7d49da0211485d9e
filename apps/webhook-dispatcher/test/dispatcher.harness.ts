import type { INestApplication } from '@nestjs/common';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import {
  encodeJson,
  EVENT_KINDS,
  generateWebhookSecret,
  LATEST_WEBHOOK_VERSION,
  renderWebhookPayload,
  type EventKind,
  type PayloadObject,
  type TransactionRecord,
  type WebhookVersion,
} from '#domain';
import {
  AmqpClient,
  ATTEMPT_HEADER,
  EXCHANGES,
  publishWebhookChanged,
  ROUTING_KEYS,
  type DeliveryMessage,
  type PlatformEvent,
} from '#messaging';
import type { WebhookLogRequest } from '#persistence';
import { SecretCipher } from '#platform';
import { appTestEnv, testEnv, WebhookBodyChecks, type WebhookBodySettings } from '#testing';
import { loadWebhookDispatcherConfig } from '../src/config/webhook-dispatcher.config.js';
import { createWebhookDispatcherApp } from '../src/webhook-dispatcher.app.js';

/** One key for every test file: deliveries left over from an earlier file must still decrypt. */
export const ENCRYPTION_KEY = Buffer.alloc(32, 'dispatcher-tests');
const cipher = new SecretCipher(ENCRYPTION_KEY);

export function dispatcherEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return appTestEnv({
    SECRET_ENCRYPTION_KEY: ENCRYPTION_KEY.toString('base64'),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_DELAYS: Array(10).fill('50ms').join(','),
    WEBHOOK_DISPATCHER_PORT: '0',
    ...extra,
  });
}

export async function startDispatcher(extra: Record<string, string> = {}): Promise<INestApplication> {
  const app = await createWebhookDispatcherApp(loadWebhookDispatcherConfig(dispatcherEnv(extra)));
  await app.init();
  return app;
}

let pool: pg.Pool | undefined;
let changes: AmqpClient | undefined;
export function db(): pg.Pool {
  pool ??= new pg.Pool({ connectionString: testEnv().databaseUrl, max: 4 });
  return pool;
}
export async function closeDb(): Promise<void> {
  await pool?.end();
  pool = undefined;
  await changes?.close();
  changes = undefined;
}

export async function createMerchant(): Promise<{ merchantId: string; integrationId: string }> {
  const merchantId = randomUUID();
  const integrationId = randomUUID();
  await db().query('INSERT INTO merchant (id, name) VALUES ($1, $2)', [
    merchantId,
    `Merchant ${merchantId.slice(0, 8)}`,
  ]);
  await db().query(
    `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, 'shop', $3, 'pk_test')`,
    [integrationId, merchantId, randomBytes(32)],
  );
  return { merchantId, integrationId };
}

export interface WebhookSpec {
  /** A chosen id (e.g. for a given slow-lane shard); random by default. */
  id?: string;
  merchantId: string;
  url: string;
  retryOnError?: boolean;
  contentType?: 'json' | 'php-post';
  version?: WebhookVersion;
  events?: EventKind[];
  integrationId?: string | null;
  /** Extra, older secrets still valid (rotation), newest first after the current one. */
  rotatedSecrets?: string[];
  /** false: created disabled (by its merchant). */
  enabled?: boolean;
  /** At most this many requests a second (null: no limit). */
  maxPerSecond?: number | null;
  /** false: repeats of an event are made even after a newer event of its subject was delivered (default true). */
  skipSupersededRepeats?: boolean;
}

/**
 * The version and content type of the webhook the tests created at each URL, and of each webhook by id: receivers
 * check every body they get against the webhook they serve.
 */
const servedAt = new Map<string, WebhookBodySettings | undefined>();
const settingsOf = new Map<string, WebhookBodySettings>();

function serve(url: string, settings: WebhookBodySettings): void {
  const key = new URL(url).href;
  const known = servedAt.get(key);
  const same =
    !servedAt.has(key) || (known?.version === settings.version && known.contentType === settings.contentType);
  // Two webhooks with different settings at one URL: a body there cannot be told apart, so none is checked as valid.
  servedAt.set(key, same ? settings : undefined);
}

/** Tells the receivers which webhook is served at `url` when the test created it elsewhere (webhook-config's API). */
export function servesWebhook(url: string, settings: WebhookBodySettings): void {
  serve(url, settings);
}

/** The settings of the webhook the tests serve at `url`; undefined when none (or several that differ). */
export function webhookServedAt(url: string): WebhookBodySettings | undefined {
  return servedAt.get(new URL(url).href);
}

/** Points a webhook at another URL (in the database only: announce it where a running dispatcher must know). */
export async function moveWebhook(id: string, url: string): Promise<void> {
  await db().query('UPDATE webhook SET url = $1 WHERE id = $2', [url, id]);
  serve(url, settingsOf.get(id)!);
}

/** Inserts a webhook the way webhook-config stores it (secret encrypted with the webhook id as context). */
export async function createWebhook(spec: WebhookSpec): Promise<{ id: string; secret: string; secrets: string[] }> {
  const id = spec.id ?? randomUUID();
  const secret = generateWebhookSecret();
  const settings = { version: spec.version ?? LATEST_WEBHOOK_VERSION, contentType: spec.contentType ?? 'json' };
  settingsOf.set(id, settings);
  serve(spec.url, settings);
  await db().query(
    `INSERT INTO webhook (id, merchant_id, integration_id, name, url, content_type, version, retry_on_error, events,
                          enabled, disabled_reason, max_per_second, skip_superseded_repeats)
     VALUES ($1, $2, $3, 'test hook', $4, $5, $6, $7, $8, $9, CASE WHEN $9 THEN NULL ELSE 'manual' END, $10, $11)`,
    [
      id,
      spec.merchantId,
      spec.integrationId ?? null,
      spec.url,
      settings.contentType,
      settings.version,
      spec.retryOnError ?? false,
      spec.events ?? [...EVENT_KINDS],
      spec.enabled ?? true,
      spec.maxPerSecond ?? null,
      spec.skipSupersededRepeats ?? true,
    ],
  );
  await db().query(`INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, $3)`, [
    randomUUID(),
    id,
    cipher.encrypt(secret, id),
  ]);
  for (const old of spec.rotatedSecrets ?? []) {
    await db().query(
      `INSERT INTO webhook_secret (id, webhook_id, ciphertext, created_at, expires_at)
       VALUES ($1, $2, $3, now() - interval '1 hour', now() + interval '23 hours')`,
      [randomUUID(), id, cipher.encrypt(old, id)],
    );
  }
  // Like webhook-config: announce the change so running dispatchers refresh their cache.
  changes ??= testAmqp('test-config-changes');
  await publishWebhookChanged(changes, { webhookId: id, merchantId: spec.merchantId });
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { id, secret, secrets: [secret, ...(spec.rotatedSecrets ?? [])] };
}

export interface LogRow {
  id: string;
  delivery_id: string;
  attempt: number;
  outcome: string;
  status: number | null;
  error: string | null;
  event_type: string;
  event_id: string;
  request: WebhookLogRequest;
  next_attempt_at: Date | null;
  response_excerpt: string | null;
  duration_ms: number;
}

export async function logsOf(webhookId: string): Promise<LogRow[]> {
  const { rows } = await db().query<LogRow>(
    `SELECT id, delivery_id, attempt, outcome, status, error, event_type, event_id, request, next_attempt_at,
            response_excerpt, duration_ms
       FROM webhook_log WHERE webhook_id = $1 ORDER BY attempt, created_at`,
    [webhookId],
  );
  return rows;
}

/** A delivery's state, as the merchant sees it: its latest log entry. */
export async function deliveryOf(webhookId: string): Promise<{ state: string; attempts: number } | undefined> {
  const { rows } = await db().query(
    `SELECT attempt, status, next_attempt_at FROM webhook_log WHERE webhook_id = $1 ORDER BY attempt DESC LIMIT 1`,
    [webhookId],
  );
  const last = rows[0];
  if (!last) return undefined;
  const state = last.status >= 200 && last.status < 300 ? 'succeeded' : last.next_attempt_at ? 'retrying' : 'failed';
  return { state, attempts: last.attempt };
}

/** A transaction event as transaction-api publishes it: one builder for every spec (#testing). */
export { transactionEvent } from '#testing';

/** The JSON body the fan-out renders for a transaction event (for deliveries a test records itself). */
export function renderedBody(event: PlatformEvent): string {
  const transaction = event.data as unknown as TransactionRecord;
  return encodeJson(
    renderWebhookPayload(LATEST_WEBHOOK_VERSION, { type: 'transaction', transaction }) as PayloadObject,
  );
}

export async function publishEvents(amqp: AmqpClient, events: PlatformEvent[]): Promise<void> {
  await Promise.all(
    events.map((event) =>
      amqp.publish(EXCHANGES.events, event.type, Buffer.from(JSON.stringify(event)), { messageId: event.id }),
    ),
  );
}

export function testAmqp(name = 'test-publisher'): AmqpClient {
  return new AmqpClient({ url: testEnv().amqpUrl, name, topology: { retryDelaysMs: [] } });
}

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  receivedAt: number;
}

/** A receiver's answer to one request: a status (with a body, headers, after a delay), or none at all. */
export type ReceiverAnswer =
  { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | 'hang';

/**
 * A loopback HTTP receiver whose answer per path the test decides (at once, or once a promise settles: a receiver
 * that looks something up first). Every body is checked against the schema of the webhook served at its URL;
 * `stop()` fails when one was not as published.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  readonly bodies = new WebhookBodyChecks();
  private server!: Server;
  url = '';
  private readonly open = new Set<ServerResponse>();

  constructor(
    private respond: (request: ReceivedRequest, count: number) => ReceiverAnswer | Promise<ReceiverAnswer> = () => ({
      status: 200,
      body: 'ok',
    }),
  ) {}

  setResponder(respond: Receiver['respond']): void {
    this.respond = respond;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const received = {
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        };
        this.requests.push(received);
        // The URL as the dispatcher requested it (a webhook may name this receiver `localhost`).
        const url = `http://${req.headers.host}${received.path}`;
        this.bodies.check(received, webhookServedAt(url), url);
        const count = this.requests.filter((r) => r.path === received.path).length;
        const reply = (answer: ReceiverAnswer) => {
          if (answer === 'hang') {
            this.open.add(res);
            return;
          }
          const send = () => {
            res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain' });
            res.end(answer.body ?? '');
          };
          if (answer.delayMs) setTimeout(send, answer.delayMs);
          else send();
        };
        const answer = this.respond(received, count);
        if (answer instanceof Promise) {
          answer.then(reply, (error: Error) => reply({ status: 599, body: `receiver failed: ${error.message}` }));
        } else reply(answer);
      });
    });
    this.server.keepAliveTimeout = 1_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  to(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.bodies.assertValid();
  }
}

/**
 * Publishes a delivery message to the delivery queue as a producer other than the fan-out would (a command, a resend):
 * attempt `attempt` in `x-attempt`.
 */
export async function publishDelivery(
  amqp: AmqpClient,
  message: Omit<DeliveryMessage, 'v'>,
  attempt: number,
): Promise<void> {
  const body: DeliveryMessage = { v: 1, ...message };
  await amqp.publish(EXCHANGES.deliveries, ROUTING_KEYS.deliver, Buffer.from(JSON.stringify(body)), {
    messageId: message.deliveryId,
    headers: { [ATTEMPT_HEADER]: attempt },
  });
}
