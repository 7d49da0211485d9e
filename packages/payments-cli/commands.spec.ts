import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { API_KEY, FakeBackend, killClis, runCli } from './cli-harness.js';

describe('payments: help, usage errors, trigger, problems', () => {
  let backend: FakeBackend;

  beforeEach(async () => {
    backend = await new FakeBackend().start();
  });

  afterEach(async () => {
    killClis();
    await backend.stop();
  });

  const env = () => ({ PAYMENTS_BACKEND_URL: backend.url });

  it.each([[['--help']], [[]], [['listen', '--help']], [['trigger', '-h']]])('prints usage for %j', async (args) => {
    const cli = runCli(args);
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toMatch(/^Usage: payments /);
    expect(cli.stdout()).toContain('PAYMENTS_BACKEND_URL');
  });

  it('documents the listen options', async () => {
    const cli = runCli(['listen', '--help']);
    await cli.exited;
    for (const option of ['--api-key', '--forward-to', '--events', '--version', '--content-type']) {
      expect(cli.stdout()).toContain(option);
    }
    expect(cli.stdout()).not.toContain('--timeout-ms');
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['listen', '--forward-to', 'http://localhost:4000/', '--verbose'], /unknown option --verbose/],
    [['listen', '--forward-to', 'http://localhost:4000/'], /an API key is required/],
    [['listen', '--api-key', 'k'], /--forward-to <url> is required/],
    [['listen', '--api-key', 'k', '--forward-to', 'localhost:4000'], /--forward-to must be an http/],
    [['listen', '--api-key', 'k', '--forward-to', 'http://x/', '--events', 'refund'], /unknown kind "refund"/],
    [['listen', '--api-key', 'k', '--forward-to', 'http://x/', '--content-type', 'xml'], /--content-type must be/],
    [['listen', '--api-key'], /--api-key needs a value/],
    [['trigger', '--api-key', 'k'], /which kind\?/],
    [['trigger', 'refund', '--api-key', 'k'], /unknown kind "refund"/],
  ])('exits 2 with a usage error for %j', async (args, message) => {
    const cli = runCli(args, env());
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toMatch(message);
    expect(cli.stderr()).toMatch(/See "payments( \w+)? --help"/);
    expect(backend.requests).toHaveLength(0);
  });

  it('does not print a key given to a mistyped option', async () => {
    const cli = runCli(['trigger', 'payout', `--apikey=${API_KEY}`], env());
    expect(await cli.exited).toBe(2);
    expect(cli.stderr()).toContain('unknown option --apikey');
    expect(cli.stderr()).not.toContain(API_KEY);
  });

  it('triggers a sample and prints what was sent to how many sessions', async () => {
    const cli = runCli(['trigger', 'transaction', '--api-key', API_KEY], env());
    expect(await cli.exited).toBe(0);
    expect(cli.stdout()).toBe('Sent a sample transaction.created event (evt_123) to 2 listening sessions.\n');
    const [request] = backend.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/api/cli/trigger');
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(JSON.parse(request.body.toString())).toEqual({ kind: 'transaction' });
  });

  it('warns when no session listens for the kind, still exiting 0; the key may come from PAYMENTS_API_KEY', async () => {
    backend.triggerAnswer = { status: 202, body: { eventId: 'evt_9', eventType: 'payout.created', sessions: 0 } };
    const cli = runCli(['trigger', 'payout'], { ...env(), PAYMENTS_API_KEY: API_KEY });
    expect(await cli.exited).toBe(0);
    expect(cli.stderr()).toMatch(/^Warning: sent a sample payout\.created event \(evt_9\), but no listening session/);
    expect(backend.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it.each([['listen'], ['trigger']])('%s: a wrong key prints the problem detail and exits 1', async (command) => {
    const detail = 'The API key is not known: no integration has it.';
    const problem = { type: 'urn:problem:unauthorized', title: 'Unauthorized', status: 401, detail };
    backend.sessionAnswer = { status: 401, body: problem };
    backend.triggerAnswer = { status: 401, body: problem };
    const args =
      command === 'listen'
        ? ['listen', '--api-key', API_KEY, '--forward-to', 'http://127.0.0.1:4000/']
        : ['trigger', 'subscription', '--api-key', API_KEY];
    const cli = runCli(args, env());
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toBe(`payments: ${detail}\n`);
    expect(cli.stdout()).toBe('');
    expect(backend.connections).toHaveLength(0);
  });

  it('prints any other problem with its field messages and exits 1, never the key', async () => {
    backend.sessionAnswer = {
      status: 400,
      body: {
        type: 'urn:problem:validation',
        title: 'Bad Request',
        status: 400,
        detail: `Invalid body for ${API_KEY}`,
        errors: [{ field: 'version', message: 'must be one of 2025-01-15, 2026-08-20' }],
      },
    };
    const cli = runCli(
      ['listen', '--api-key', API_KEY, '--forward-to', 'http://127.0.0.1:4000/', '--version', '1999'],
      env(),
    );
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toBe('payments: Invalid body for pk_… (version: must be one of 2025-01-15, 2026-08-20)\n');
  });

  it('names the backend URL when it cannot be reached, exit 1', async () => {
    const url = backend.url;
    await backend.stop();
    const cli = runCli(['trigger', 'webhook', '--api-key', API_KEY], { PAYMENTS_BACKEND_URL: url });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toContain(`cannot reach the payments backend at ${url} (`);
    expect(cli.stderr()).toContain('ECONNREFUSED');
    expect(cli.stderr()).not.toContain(API_KEY);
    backend = await new FakeBackend().start();
  });
});
