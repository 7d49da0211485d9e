import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, WebhookBodyChecks } from '#testing';
import { webhookServedAt } from './dispatcher.harness.js';

/**
 * A webhook receiver written the way a PHP shop writes one: it checks `x-webhook-signature` with hash_hmac
 * over the raw body and reads the 3-D Secure ECI from $_POST. It answers 200 with what it saw, 401 on a bad
 * signature. It keeps every POST (headers and raw body) in received.jsonl, checked against the webhook's schema when
 * it stops.
 */
const ROUTER = `<?php
$raw = file_get_contents('php://input');
if ($_SERVER['REQUEST_METHOD'] === 'POST') {
  $seen = ['headers' => array_change_key_case(getallheaders()), 'body' => base64_encode($raw)];
  file_put_contents(__DIR__ . '/received.jsonl', json_encode($seen) . "\\n", FILE_APPEND | LOCK_EX);
}
$expected = hash_hmac('sha256', $raw, getenv('WEBHOOK_SECRET'));
$given = $_SERVER['HTTP_X_WEBHOOK_SIGNATURE'] ?? '';
header('Content-Type: application/json');
if (!hash_equals($expected, $given)) { http_response_code(401); echo json_encode(['error' => 'bad signature']); return; }
echo json_encode([
  'eci' => $_POST['transaction']['3dsecure']['eci'] ?? null,
  'flow' => $_POST['transaction']['3dsecure']['flow'] ?? null,
  'referenceId' => $_POST['transaction']['referenceId'] ?? null,
  'amount' => $_POST['transaction']['amount'] ?? null,
]);
`;

/** `port`: where to listen (default a free one), for a sender told the URL before the secret was known. */
export async function startPhpReceiver(
  secret: string,
  port?: number,
): Promise<{ url: string; stop: () => Promise<void> }> {
  if (spawnSync('php', ['--version']).status !== 0) {
    throw new Error('php is required for this test and was not found: apt-get install -y php-cli');
  }
  const dir = mkdtempSync(join(tmpdir(), 'php-receiver-'));
  writeFileSync(join(dir, 'router.php'), ROUTER);
  port ??= await freePort();
  const child: ChildProcess = spawn('php', ['-n', '-S', `127.0.0.1:${port}`, join(dir, 'router.php')], {
    cwd: dir,
    env: { ...process.env, WEBHOOK_SECRET: secret },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/webhook.php`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await fetch(url, { method: 'GET' });
      break;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`php -S did not start: ${String(error)}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGKILL');
      const log = join(dir, 'received.jsonl');
      const received = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(0, -1) : [];
      rmSync(dir, { recursive: true, force: true });
      const bodies = new WebhookBodyChecks();
      for (const line of received) {
        const { headers, body } = JSON.parse(line) as { headers: Record<string, string>; body: string };
        bodies.check({ headers, body: Buffer.from(body, 'base64') }, webhookServedAt(url), url);
      }
      await bodies.assertValid();
    },
  };
}
