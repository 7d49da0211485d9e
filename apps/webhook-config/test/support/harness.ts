import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { dataSourceOptions } from '#persistence';
import { appTestEnv, listen, testEnv } from '#testing';
import { DataSource } from 'typeorm';
import { DEV_PLATFORM_TOKEN, loadWebhookConfigConfig } from '../../src/config/webhook-config.config.js';
import { createWebhookConfigApp } from '../../src/webhook-config.app.js';

/**
 * A running webhook-config on a free port, with a handle on its database: the test's own connection as the database's
 * owner, which seeds and checks what the app's role may not write (merchants, deliveries and their log).
 */
export interface RunningApp {
  app: NestFastifyApplication;
  baseUrl: string;
  db: DataSource;
  close(): Promise<void>;
}

export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  const app = await createWebhookConfigApp(loadWebhookConfigConfig(appTestEnv(env)));
  const baseUrl = await listen(app);
  const db = await new DataSource(dataSourceOptions({ url: testEnv().databaseUrl, poolSize: 2 })).initialize();
  return {
    app,
    baseUrl,
    db,
    close: async () => {
      await app.close();
      await db.destroy();
    },
  };
}

/** Parsed JSON of an answer: tests look into it freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface Answer<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function call<T = Json>(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    redirect: 'manual',
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

/** A merchant with integrations, inserted directly (transaction-api owns creating them). */
export async function seedMerchant(
  db: DataSource,
  integrationNames: string[] = ['Online shop'],
): Promise<{ merchantId: string; integrationIds: string[] }> {
  const merchantId = randomUUID();
  await db.query(`INSERT INTO merchant (id, name) VALUES ($1, $2)`, [merchantId, `Merchant ${merchantId.slice(0, 8)}`]);
  const integrationIds: string[] = [];
  for (const name of integrationNames) {
    const id = randomUUID();
    await db.query(
      `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, $3, $4, $5)`,
      [id, merchantId, name, Buffer.from(randomUUID()), 'pk_test'],
    );
    integrationIds.push(id);
  }
  return { merchantId, integrationIds };
}

export const platformHeaders = { authorization: `Bearer ${DEV_PLATFORM_TOKEN}` };
export const PASSWORD = 'correct horse battery staple';

export async function createUser(
  baseUrl: string,
  merchantId: string,
  email = `owner-${randomUUID().slice(0, 8)}@shop.example`,
): Promise<string> {
  const answer = await call(baseUrl, 'POST', `/internal/merchants/${merchantId}/users`, {
    body: { email, password: PASSWORD },
    headers: platformHeaders,
  });
  if (answer.status !== 201) throw new Error(`could not create a user: ${answer.status} ${answer.text}`);
  return email;
}

/** The session cookie from a Set-Cookie header. */
export function sessionCookieOf(headers: Headers): string | undefined {
  const cookie = headers.getSetCookie().find((value) => value.startsWith('wc_session='));
  return cookie?.split(';')[0];
}

/** A signed-in browser: sends the cookie, and the CSRF token on mutating requests. */
export class Client {
  constructor(
    readonly baseUrl: string,
    readonly cookie: string,
    readonly csrfToken: string,
    readonly merchantId: string,
  ) {}

  request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    options: { csrf?: boolean } = {},
  ): Promise<Answer<T>> {
    const csrf = options.csrf ?? method !== 'GET';
    return call<T>(this.baseUrl, method, path, {
      body,
      headers: { cookie: this.cookie, ...(csrf ? { 'x-csrf-token': this.csrfToken } : {}) },
    });
  }
  get<T = Json>(path: string) {
    return this.request<T>('GET', path);
  }
  post<T = Json>(path: string, body?: unknown) {
    return this.request<T>('POST', path, body);
  }
  patch<T = Json>(path: string, body?: unknown) {
    return this.request<T>('PATCH', path, body);
  }
  delete<T = Json>(path: string) {
    return this.request<T>('DELETE', path);
  }
}

export async function signIn(baseUrl: string, email: string, merchantId: string, password = PASSWORD): Promise<Client> {
  const answer = await call(baseUrl, 'POST', '/api/session', { body: { email, password } });
  const cookie = sessionCookieOf(answer.headers);
  if (answer.status !== 200 || !cookie) throw new Error(`could not sign in: ${answer.status} ${answer.text}`);
  return new Client(baseUrl, cookie, answer.body.csrfToken, merchantId);
}

/** A new merchant with one integration and a signed-in backend user. */
export async function newMerchantSession(
  running: RunningApp,
  integrationNames?: string[],
): Promise<Client & { integrationIds: string[] }> {
  const { merchantId, integrationIds } = await seedMerchant(running.db, integrationNames);
  const email = await createUser(running.baseUrl, merchantId);
  return Object.assign(await signIn(running.baseUrl, email, merchantId), { integrationIds });
}

/** A public address literal: passes the URL policy without DNS (the sandbox has none). */
export const PUBLIC_URL = 'https://93.184.215.14/webhooks/payments';
