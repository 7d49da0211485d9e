import { describe, expect, it } from '@jest/globals';
import { DEV_SECRET_ENCRYPTION_KEY, loadWebhookConfigConfig } from '../config/webhook-config.config.js';
import { type HostResolver, WebhookUrlPolicy, webhookUrlSyntaxProblem } from './webhook-url.policy.js';

describe('webhookUrlSyntaxProblem', () => {
  it.each([
    'https://shop.example/webhooks/payments',
    'http://shop.example:8080/hook?secret-path=1#x',
    'HTTPS://Shop.Example/Hook',
    'https://[2001:4860:4860::8888]/hook',
    'https://shop.example/hook?from=a@b#c@d',
    'https://shop.example/path@with-at',
    'http://shop.example:80/hook',
    'https://shop.example:443/hook',
    'https://shop.example:80/hook',
    'http://shop.example:443/hook',
    'http://shop.example:1024/hook',
    'https://shop.example:65535/hook',
    'https://[2001:4860:4860::8888]:8443/hook',
    'http://shop.example:/hook',
    'https://shop.example:0443/hook',
  ])('accepts %s', (url) => {
    expect(webhookUrlSyntaxProblem(url)).toBeUndefined();
  });

  it.each([
    [42, 'must be a text value'],
    ['', 'must not be empty'],
    [' https://shop.example/', 'must not start or end with spaces'],
    ['https://shop.example/a b', 'must not contain spaces or control characters'],
    ['shop.example/hook', 'must be an absolute URL starting with https:// or http://'],
    ['/relative/hook', 'must be an absolute URL starting with https:// or http://'],
    ['ftp://shop.example/hook', 'must start with https:// or http://'],
    ['javascript:alert(1)', 'must start with https:// or http://'],
    ['https:shop.example/hook', 'must be an absolute URL starting with https:// or http://'],
    [`https://shop.example/${'a'.repeat(2048)}`, 'must be at most 2048 characters long'],
  ])('rejects %p: %s', (url, message) => {
    expect(webhookUrlSyntaxProblem(url)).toBe(message);
  });

  // The URL parser drops an empty user info (`http://@host/` reads as `http://host/`): the written URL decides.
  it.each([
    'https://user:pass@shop.example/hook',
    'https://token@shop.example/hook',
    'http://user@shop.example/',
    'http://:@shop.example/',
    'http://@shop.example/',
    'http://:pass@shop.example/',
    'http://user:@shop.example/',
    'HTTP://@shop.example/',
    'http://@shop.example',
    'http://@shop.example?x',
    'http://@@shop.example/',
    'http:///@shop.example/',
    'https://@[2001:4860:4860::8888]/',
    'https://@shop.example:8443/',
  ])('rejects user info, even empty: %p', (url) => {
    expect(webhookUrlSyntaxProblem(url)).toBe(
      'must not contain a user name or password (no "@" before the host name); verify the webhook signature instead',
    );
  });

  it.each([
    ['http://shop.example:22/hook', 22],
    ['https://shop.example:25/hook', 25],
    ['http://shop.example:0/hook', 0],
    ['http://shop.example:1/hook', 1],
    ['https://shop.example:1023/hook', 1023],
    ['http://[2001:4860:4860::8888]:110/', 110],
    ['https://shop.example:65536/hook', 65536],
    ['https://shop.example:99999999/hook', 99999999],
  ])('rejects the port of %p', (url, port) => {
    expect(webhookUrlSyntaxProblem(url)).toBe(`must use port 80, 443 or a port from 1024 to 65535, not ${port}`);
  });
});

describe('WebhookUrlPolicy', () => {
  const config = (allowPrivate: boolean) =>
    loadWebhookConfigConfig({
      NODE_ENV: 'test',
      SECRET_ENCRYPTION_KEY: DEV_SECRET_ENCRYPTION_KEY,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allowPrivate),
    });
  const resolverOf =
    (table: Record<string, string[] | Error>): HostResolver =>
    async (host) => {
      const answer = table[host] ?? Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      if (answer instanceof Error) throw answer;
      return answer;
    };
  const policy = (table: Record<string, string[] | Error> = {}, allowPrivate = false) =>
    new WebhookUrlPolicy(config(allowPrivate), resolverOf(table));

  it('accepts a host whose every address is public', async () => {
    const p = policy({ 'shop.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    await expect(p.targetProblem('https://shop.example/hook')).resolves.toBeUndefined();
  });

  it.each([
    ['http://127.0.0.1:8080/hook', '127.0.0.1'],
    ['http://[::1]/hook', '::1'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['http://10.1.2.3/hook', '10.1.2.3'],
    ['http://192.168.1.10/hook', '192.168.1.10'],
    ['http://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
    ['http://2130706433/hook', '127.0.0.1'],
    ['http://0x7f.1/hook', '127.0.0.1'],
  ])('rejects the private address literal in %s', async (url, host) => {
    await expect(policy().targetProblem(url)).resolves.toBe(
      `must point to a public internet address; ${host} is a private, loopback or link-local address, which webhooks may not reach`,
    );
  });

  it('rejects a host name when any of its addresses is private (DNS rebinding bait)', async () => {
    const p = policy({ 'mixed.example': ['93.184.215.14', '10.0.0.5'], localhost: ['127.0.0.1', '::1'] });
    await expect(p.targetProblem('https://mixed.example/hook')).resolves.toBe(
      'must point to a public internet address; mixed.example is a private, loopback or link-local address (10.0.0.5), which webhooks may not reach',
    );
    await expect(p.targetProblem('http://localhost:3000/hook')).resolves.toContain('(127.0.0.1, ::1)');
  });

  it('says when a host does not exist or cannot be looked up', async () => {
    const p = policy({ 'flaky.example': Object.assign(new Error('try again'), { code: 'EAI_AGAIN' }) });
    await expect(p.targetProblem('https://nowhere.example/hook')).resolves.toBe(
      'host nowhere.example does not exist (it has no DNS address)',
    );
    await expect(p.targetProblem('https://flaky.example/hook')).resolves.toBe(
      'host flaky.example could not be looked up right now; please try again in a moment',
    );
  });

  it('allows anything when WEBHOOK_ALLOW_PRIVATE_TARGETS is true, without looking up', async () => {
    await expect(policy({}, true).targetProblem('http://127.0.0.1:9/hook')).resolves.toBeUndefined();
    await expect(policy({}, true).targetProblem('http://unresolvable.invalid/hook')).resolves.toBeUndefined();
  });
});
