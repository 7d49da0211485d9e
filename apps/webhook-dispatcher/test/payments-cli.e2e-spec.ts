import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { freePort, waitFor } from '#testing';
import { startAppProcess, stopAppProcess, type AppProcess } from './app-process.js';
import { Receiver, closeDb, dispatcherEnv, servesWebhook } from './dispatcher.harness.js';
import { startPhpReceiver } from './php-receiver.js';

const PLATFORM = { authorization: 'Bearer development-platform-token' };
const CLI = 'packages/payments-cli/payments.js';

async function call(
  baseUrl: string,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON, looked into freely
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** The real `payments` process; its output as it comes, and its exit code. */
class CliProcess {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[], backendUrl: string) {
    this.child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, PAYMENTS_BACKEND_URL: backendUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      stream.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    }
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  line(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    return waitFor(() => this.output.split('\n').find((line) => pattern.test(line)), {
      timeoutMs,
      what: `a line ${pattern} from payments; it printed:\n${this.output}`,
    });
  }

  lines(pattern: RegExp): string[] {
    return this.output.split('\n').filter((line) => pattern.test(line));
  }

  /** The secret of the ready line. */
  async ready(): Promise<string> {
    const line = await this.line(/Ready!/);
    return /(whsec_[A-Za-z0-9+/=]+)/.exec(line)![1]!;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGINT');
    await this.exited;
  }
}

/**
 * `payments listen` and `payments trigger` (CONTRACT §8, issue #34) end to end: the command line as a real process
 * against the three apps as OS processes, real PostgreSQL and RabbitMQ, and real local receivers — one that verifies
 * each request with the `standardwebhooks` package and the printed secret (and checks each body against the published
 * schema), and PHP for PHP-Post. Events come from the platform API with a real API key.
 */
describe('payments listen and trigger (e2e: the command line against the apps as processes)', () => {
  const receiver = new Receiver();
  let api: AppProcess;
  let config: AppProcess;
  let dispatcher: AppProcess;
  let configPort: number;
  let env: NodeJS.ProcessEnv;
  let merchantId: string;
  let integrationId: string;
  let apiKey: string;
  let otherIntegrationId: string;
  let backend: Record<string, string>;
  const clis: CliProcess[] = [];

  const listen = (args: string[]) => {
    const cli = new CliProcess(['listen', '--api-key', apiKey, ...args], config.baseUrl);
    clis.push(cli);
    return cli;
  };
  const payment = async (integration: string, referenceId: string) => {
    const created = await call(
      api.baseUrl,
      'POST',
      '/internal/transactions',
      {
        merchantId,
        integrationId: integration,
        referenceId,
        status: 'waiting',
        psp: 'Payrexx Direct',
        type: 'e-commerce',
        paymentMethod: 'visa',
        amount: 1990,
        currency: 'CHF',
        authentication: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
      },
      PLATFORM,
    );
    expect(created.status).toBe(201);
    return created.body.uuid as string;
  };
  const forwardedTo = (path: string, uuid: string) =>
    receiver.to(path).filter((request) => request.body.includes(uuid));

  beforeAll(async () => {
    await receiver.start();
    configPort = await freePort();
    // A drain at SIGTERM as in production: the command lines' answers to the server's close arrive before it exits.
    env = dispatcherEnv({ TRANSACTION_API_PORT: '0', WEBHOOK_CONFIG_PORT: '0', SHUTDOWN_DRAIN_MS: '1000' });
    [api, config, dispatcher] = await Promise.all([
      startAppProcess('transaction-api', env),
      startAppProcess('webhook-config', env, { port: configPort }),
      startAppProcess('webhook-dispatcher', env),
    ]);
    const merchant = await call(api.baseUrl, 'POST', '/internal/merchants', { name: 'CLI shop' }, PLATFORM);
    merchantId = merchant.body.id;
    const integration = await call(
      api.baseUrl,
      'POST',
      `/internal/merchants/${merchantId}/integrations`,
      { name: 'shop' },
      PLATFORM,
    );
    ({ id: integrationId, apiKey } = integration.body);
    const other = await call(
      api.baseUrl,
      'POST',
      `/internal/merchants/${merchantId}/integrations`,
      { name: 'pos' },
      PLATFORM,
    );
    otherIntegrationId = other.body.id;
    const email = `cli-${randomUUID()}@example.com`;
    const password = 'correct horse battery staple';
    await call(config.baseUrl, 'POST', `/internal/merchants/${merchantId}/users`, { email, password }, PLATFORM);
    const session = await call(config.baseUrl, 'POST', '/api/session', { email, password });
    const cookie = session.headers
      .getSetCookie()
      .find((value) => value.startsWith('wc_session='))!
      .split(';')[0]!;
    backend = { cookie, 'x-csrf-token': session.body.csrfToken };
  }, 120_000);

  afterAll(async () => {
    for (const cli of clis) await cli.stop();
    await Promise.all([stopAppProcess(dispatcher), stopAppProcess(config), stopAppProcess(api)]);
    await receiver.stop(); // fails when a forwarded body was not as the OpenAPI `webhooks` publish it
    await closeDb();
  }, 60_000);

  it('forwards the integration’s real events, signed with the printed secret, one line each; trigger reaches sessions only; the backend shows the session and its log', async () => {
    servesWebhook(`${receiver.url}/cli`, { version: '2026-08-20', contentType: 'json' });
    const hook = await call(
      config.baseUrl,
      'POST',
      '/api/webhooks',
      { name: 'shop', url: `${receiver.url}/hook`, events: ['transaction'], integrationId },
      backend,
    );
    expect(hook.status).toBe(201);
    servesWebhook(`${receiver.url}/hook`, { version: '2026-08-20', contentType: 'json' });

    const cli = listen(['--forward-to', `${receiver.url}/cli`]);
    const secret = await cli.ready();
    const onlySubscriptions = listen(['--forward-to', `${receiver.url}/subscriptions`, '--events', 'subscription']);
    await onlySubscriptions.ready();

    const uuid = await payment(integrationId, 'order-cli-1');
    const [request] = await waitFor(() => forwardedTo('/cli', uuid).length > 0 && forwardedTo('/cli', uuid), {
      what: 'the payment at the local URL',
    });
    // Exactly as a webhook of the session's version and content type: Standard Webhooks over the bytes, our headers.
    const body = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as {
      transaction: Record<string, unknown>;
    };
    expect(body.transaction).toMatchObject({
      uuid,
      referenceId: 'order-cli-1',
      '3dsecure': { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
    });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'payments-webhooks/1.0',
      'webhook-id': expect.stringMatching(/^[0-9a-f-]{36}$/),
      'x-webhook-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await cli.line(new RegExp(`transaction\\.created\\s+${uuid}\\s+--> 200`))).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s/,
    );

    // The other integration's payments are not this key's; a session without `transaction` gets none either.
    const foreign = await payment(otherIntegrationId, 'order-pos-1');
    await waitFor(() => receiver.to('/hook').some((r) => r.body.includes(uuid)), { what: 'the webhook’s delivery' });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(forwardedTo('/cli', foreign)).toEqual([]);
    expect(receiver.to('/subscriptions')).toEqual([]);
    // The real webhook got the event once: the sessions' routing key adds no second copy for the dispatcher.
    expect(receiver.to('/hook').filter((r) => r.body.includes(uuid))).toHaveLength(1);

    const triggered = new CliProcess(['trigger', 'transaction', '--api-key', apiKey], config.baseUrl);
    expect(await triggered.exited).toBe(0);
    expect(triggered.output).toMatch(/transaction\.created .* to 1 listening session/);
    // The sample: a second transaction line, with an id of its own.
    await waitFor(() => cli.lines(/transaction\.created\s+\S+\s+--> 200/).length === 2, { what: 'the sample’s line' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.to('/hook')).toHaveLength(1); // the sample went to the sessions only
    expect(receiver.to('/subscriptions')).toEqual([]);

    // Operators see the connected command lines of each webhook-config process.
    expect(await (await fetch(`${config.baseUrl}/metrics`)).text()).toMatch(/^cli_session_connections 2$/m);

    // The backend lists the session as connected, with its log (searchable by the order's reference).
    const sessions = await call(config.baseUrl, 'GET', '/api/cli-sessions', undefined, backend);
    expect(sessions.status).toBe(200);
    expect(sessions.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          integrationId,
          connected: true,
          forwardTo: `${receiver.url}/cli`,
          events: ['transaction', 'subscription', 'payout', 'webhook'],
        }),
      ]),
    );
    const listed = sessions.body.data.find((s: { forwardTo: string }) => s.forwardTo === `${receiver.url}/cli`);
    const logs = await waitFor(
      async () => {
        const page = await call(config.baseUrl, 'GET', `/api/cli-sessions/${listed.id}/logs`, undefined, backend);
        return page.body.data.length >= 2 && page.body.data;
      },
      { what: 'the session’s log' },
    );
    expect(logs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          eventType: 'transaction.created',
          subjectId: uuid,
          referenceId: 'order-cli-1',
          status: 200,
        }),
      ]),
    );
    // Another merchant's backend sees neither.
    expect(
      (await call(config.baseUrl, 'GET', `/api/cli-sessions/${randomUUID()}/logs`, undefined, backend)).status,
    ).toBe(404);
  }, 90_000);

  it('PHP-Post in the oldest version: a PHP receiver checks the signature and rebuilds $_POST; a local error is printed, not retried', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhook.php`;
    servesWebhook(url, { version: '2025-01-15', contentType: 'php-post' });
    const cli = listen(['--forward-to', url, '--version', '2025-01-15', '--content-type', 'php-post']);
    const php = await startPhpReceiver(await cli.ready(), port);
    try {
      const uuid = await payment(integrationId, 'order-php-1');
      // 200: PHP's hash_hmac over the raw body matched x-webhook-signature (else the receiver answers 401).
      await cli.line(new RegExp(`transaction\\.created\\s+${uuid}\\s+--> 200`));
    } finally {
      await php.stop(); // checks each body PHP got against the published schema of 2025-01-15 PHP-Post
    }
    // The local URL is gone now: the next event is printed with the error, once.
    const uuid = await payment(integrationId, 'order-php-2');
    await cli.line(new RegExp(`transaction\\.created\\s+${uuid}\\s+--> ERROR`));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(cli.lines(new RegExp(uuid))).toHaveLength(1);
  }, 60_000);

  it('a dropped connection (the backend restarted): it reconnects, and the events of the gap arrive, each once', async () => {
    const cli = listen(['--forward-to', `${receiver.url}/gap`]);
    await cli.ready();
    servesWebhook(`${receiver.url}/gap`, { version: '2026-08-20', contentType: 'json' });
    await stopAppProcess(config);
    await cli.line(/Connection lost/);
    const gap = [];
    for (let i = 0; i < 3; i += 1) gap.push(await payment(integrationId, `order-gap-${i}`));
    config = await startAppProcess('webhook-config', env, { port: configPort });
    await cli.line(/Reconnected/, 30_000);
    for (const uuid of gap) await cli.line(new RegExp(`${uuid}\\s+--> 200`));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const uuid of gap) expect(forwardedTo('/gap', uuid)).toHaveLength(1);
  }, 90_000);

  it('a wrong key: a message naming the key’s problem and a non-zero exit', async () => {
    const unknown = new CliProcess(
      ['listen', '--api-key', `pk_${randomBytes(32).toString('base64url')}`, '--forward-to', `${receiver.url}/x`],
      config.baseUrl,
    );
    expect(await unknown.exited).toBe(1);
    expect(unknown.output).toMatch(/API key is not known/);
    const malformed = new CliProcess(['trigger', 'payout', '--api-key', 'sk_live_123'], config.baseUrl);
    expect(await malformed.exited).toBe(1);
    expect(malformed.output).toMatch(/not an API key/);
    expect(malformed.output).not.toContain('sk_live_123');
  }, 30_000);
});
