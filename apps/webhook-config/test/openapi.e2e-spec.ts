import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { EVENT_KIND_OPTIONS, EVENT_KINDS, WEBHOOK_VERSIONS } from '#domain';
import { lintOpenApi } from '#testing';
import {
  call,
  newMerchantSession,
  platformHeaders,
  PUBLIC_URL,
  seedMerchant,
  startApp,
  type Answer,
  type RunningApp,
} from './support/harness.js';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; securitySchemes: Record<string, object> };
}

describe('OpenAPI (e2e over HTTP)', () => {
  let running: RunningApp;
  let doc: OpenApi;

  beforeAll(async () => {
    running = await startApp();
    doc = (await call<OpenApi>(running.baseUrl, 'GET', '/api/docs-json')).body;
  });
  afterAll(async () => {
    await running.close();
  });

  it('serves OpenAPI 3.1 at /api/docs-json, clean under `redocly lint` (recommended rules)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // The findings themselves are the failure message: rule, place and text of each.
    expect(await lintOpenApi(doc)).toEqual([]);
  });

  it('enumerates the kinds of event and the payload versions of #domain wherever it lists them (issue #33)', () => {
    /** Every `enum` of the document, with where it is. */
    const enums: [string, unknown[]][] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${at}/${i}`));
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'enum' && Array.isArray(value)) enums.push([at, value]);
          else walk(value, `${at}/${key}`);
        }
      }
    };
    walk(doc, '');
    const naming = (values: readonly unknown[]) => enums.filter(([, list]) => list.some((v) => values.includes(v)));
    // Webhook settings, their answers, the options, the log filter: more than one place, each the whole list.
    expect(naming(EVENT_KINDS).length).toBeGreaterThanOrEqual(5);
    for (const [at, list] of naming(EVENT_KINDS)) expect([at, list]).toEqual([at, [...EVENT_KINDS]]);
    expect(naming(WEBHOOK_VERSIONS).length).toBeGreaterThanOrEqual(4);
    for (const [at, list] of naming(WEBHOOK_VERSIONS)) expect([at, list]).toEqual([at, [...WEBHOOK_VERSIONS]]);
  });

  it('gives the UI the kinds of event with their wording from #domain (GET /api/webhook-options)', async () => {
    const client = await newMerchantSession(running);
    const options = (await client.get('/api/webhook-options')).body as { eventTypes: unknown; events: unknown };
    expect(options.eventTypes).toEqual([...EVENT_KINDS]);
    expect(options.events).toEqual(EVENT_KIND_OPTIONS.map((option) => ({ ...option })));
  });

  it('asks each route for what its guard checks: cookie, cookie + CSRF header, platform token, API key, or nothing', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      session: { type: 'apiKey', in: 'cookie', name: 'wc_session' },
      csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
      platform: { type: 'http', scheme: 'bearer' },
      apiKey: { type: 'http', scheme: 'bearer' },
    });
    const security: Record<string, unknown> = {};
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) security[`${method} ${path}`] = operation.security;
    }
    expect(security).toMatchObject({
      'post /api/session': [],
      'get /api/session': [{ session: [] }],
      'delete /api/session': [{ session: [], csrf: [] }],
      'get /api/webhooks': [{ session: [] }],
      'post /api/webhooks': [{ session: [], csrf: [] }],
      'patch /api/webhooks/{id}': [{ session: [], csrf: [] }],
      'post /api/webhooks/{id}/secret/rotate': [{ session: [], csrf: [] }],
      'post /internal/merchants/{merchantId}/users': [{ platform: [] }],
      // The payments command line's: the merchant's API key, no cookie (so no CSRF token either).
      'post /api/cli/sessions': [{ apiKey: [] }],
      'post /api/cli/trigger': [{ apiKey: [] }],
    });
    for (const [route, requirements] of Object.entries(security)) {
      if (!route.includes(' /api/') || route === 'post /api/session' || route.includes(' /api/cli/')) continue;
      const csrf = !route.startsWith('get ');
      expect([route, requirements]).toEqual([route, [csrf ? { session: [], csrf: [] } : { session: [] }]]);
    }
  });

  it('documents the responses the API really gives', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const checked: string[] = [];
    const check = (method: string, path: string, answer: Answer) => {
      const media = doc.paths[path]?.[method]?.responses[String(answer.status)]?.content;
      const schema = JSON.stringify(Object.values(media ?? {})[0]?.schema ?? {});
      const validate = ajv.compile(JSON.parse(schema.replaceAll('"#/components/', '"doc#/components/')));
      const route = `${method} ${path} ${answer.status}`;
      expect([route, media ? 'documented' : 'no schema', validate(answer.body) || validate.errors]).toEqual([
        route,
        'documented',
        true,
      ]);
      checked.push(route);
    };

    const { merchantId } = await seedMerchant(running.db);
    check(
      'post',
      '/internal/merchants/{merchantId}/users',
      await call(running.baseUrl, 'POST', `/internal/merchants/${merchantId}/users`, {
        body: { email: 'no-password@shop.example' },
        headers: platformHeaders,
      }),
    );
    const client = await newMerchantSession(running);
    check('get', '/api/session', await client.get('/api/session'));
    check('get', '/api/integrations', await client.get('/api/integrations'));
    check('get', '/api/webhook-options', await client.get('/api/webhook-options'));
    check('get', '/api/event-types', await client.get('/api/event-types'));
    check('post', '/api/webhooks', await client.post('/api/webhooks', { name: 'x', url: 'ftp://x', events: [] }));
    const created = await client.post('/api/webhooks', { name: 'Shop', url: PUBLIC_URL, events: ['transaction'] });
    check('post', '/api/webhooks', created);
    const id: string = created.body.id;
    check('get', '/api/webhooks', await client.get('/api/webhooks'));
    check('get', '/api/webhooks/{id}', await client.get(`/api/webhooks/${id}`));
    check('patch', '/api/webhooks/{id}', await client.patch(`/api/webhooks/${id}`, { retryOnError: false }));
    check('post', '/api/webhooks/{id}/secret/rotate', await client.post(`/api/webhooks/${id}/secret/rotate`));
    check('get', '/api/webhooks/{id}/secret', await client.get(`/api/webhooks/${id}/secret`));
    check('post', '/api/webhooks/{id}/test', await client.post(`/api/webhooks/${id}/test`));
    check('post', '/api/webhooks/{id}/test', await client.post(`/api/webhooks/${id}/test`, { eventType: 'payout' }));
    check('get', '/api/webhooks/{id}/logs', await client.get(`/api/webhooks/${id}/logs`));
    check(
      'get',
      '/api/webhooks/{id}',
      await client.get(`/api/webhooks/${id.replace(/.$/, (last) => (last === '0' ? '1' : '0'))}`),
    );
    check(
      'delete',
      '/api/webhooks/{id}',
      await client.request('DELETE', `/api/webhooks/${id}`, undefined, { csrf: false }),
    );
    check('get', '/api/webhooks', await call(running.baseUrl, 'GET', '/api/webhooks'));
    check('get', '/webhook-sender-addresses', await call(running.baseUrl, 'GET', '/webhook-sender-addresses'));
    check('get', '/api/cli-sessions', await client.get('/api/cli-sessions'));
    check('get', '/api/cli-sessions/{id}/logs', await client.get(`/api/cli-sessions/${id}/logs`));
    check('post', '/api/cli/sessions', await call(running.baseUrl, 'POST', '/api/cli/sessions', { body: {} }));
    check(
      'post',
      '/api/cli/trigger',
      await call(running.baseUrl, 'POST', '/api/cli/trigger', { body: { kind: 'payout' } }),
    );

    expect(checked).toEqual([
      'post /internal/merchants/{merchantId}/users 400',
      'get /api/session 200',
      'get /api/integrations 200',
      'get /api/webhook-options 200',
      'get /api/event-types 200',
      'post /api/webhooks 400',
      'post /api/webhooks 201',
      'get /api/webhooks 200',
      'get /api/webhooks/{id} 200',
      'patch /api/webhooks/{id} 200',
      'post /api/webhooks/{id}/secret/rotate 200',
      'get /api/webhooks/{id}/secret 200',
      'post /api/webhooks/{id}/test 202',
      'post /api/webhooks/{id}/test 400',
      'get /api/webhooks/{id}/logs 200',
      'get /api/webhooks/{id} 404',
      'delete /api/webhooks/{id} 403',
      'get /api/webhooks 401',
      'get /webhook-sender-addresses 200',
      'get /api/cli-sessions 200',
      'get /api/cli-sessions/{id}/logs 404',
      'post /api/cli/sessions 401',
      'post /api/cli/trigger 401',
    ]);
  });
});
