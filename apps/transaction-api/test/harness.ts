import type { INestApplication } from '@nestjs/common';
import { appTestEnv, listen } from '#testing';
import { DEV_PLATFORM_TOKEN, loadTransactionApiConfig } from '../src/config/transaction-api.config.js';
import { createTransactionApiApp } from '../src/transaction-api.app.js';

export interface Reply<T = Record<string, unknown>> {
  status: number;
  contentType: string;
  headers: Headers;
  body: T;
  text: string;
}

/** A started transaction-api on a loopback port, with helpers for both of its APIs. */
export class TransactionApiHarness {
  private constructor(
    readonly app: INestApplication,
    readonly baseUrl: string,
  ) {}

  static async start(env: Record<string, string> = {}): Promise<TransactionApiHarness> {
    // The tests read with one key as fast as they can; rate-limit.e2e-spec sets its own limit.
    const defaults = { OUTBOX_POLL_MS: '100', API_RATE_LIMIT: '1000000' };
    const app = await createTransactionApiApp(loadTransactionApiConfig(appTestEnv({ ...defaults, ...env })));
    return new TransactionApiHarness(app, await listen(app));
  }

  async close(): Promise<void> {
    await this.app.close();
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined = init.raw;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: leave the body undefined, the text is still there
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      headers: response.headers,
      body: parsed as T,
      text,
    };
  }

  platform<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    return this.request<T>(method, path, { body, headers: { authorization: `Bearer ${DEV_PLATFORM_TOKEN}` } });
  }

  merchant<T = Record<string, unknown>>(apiKey: string, path: string): Promise<Reply<T>> {
    return this.request<T>('GET', path, { headers: { authorization: `Bearer ${apiKey}` } });
  }

  /** A new merchant with one integration. */
  async merchantWithKey(
    name = 'Test merchant',
  ): Promise<{ merchantId: string; integrationId: string; apiKey: string }> {
    const merchant = await this.platform<{ id: string }>('POST', '/internal/merchants', { name });
    if (merchant.status !== 201) throw new Error(`merchant: ${merchant.status} ${merchant.text}`);
    const integration = await this.platform<{ id: string; apiKey: string }>(
      'POST',
      `/internal/merchants/${merchant.body.id}/integrations`,
      { name: 'Shop' },
    );
    if (integration.status !== 201) throw new Error(`integration: ${integration.status} ${integration.text}`);
    return { merchantId: merchant.body.id, integrationId: integration.body.id, apiKey: integration.body.apiKey };
  }
}

/** A valid body for POST /internal/transactions. */
export function transactionBody(
  merchantId: string,
  integrationId: string | null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    merchantId,
    integrationId,
    referenceId: 'order-1',
    status: 'waiting',
    psp: 'Payrexx Direct',
    type: 'e-commerce',
    paymentMethod: 'visa',
    amount: 1990,
    currency: 'CHF',
    authentication: null,
    ...extra,
  };
}
