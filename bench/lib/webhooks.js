// Merchants and webhooks as the benchmarks need them: written straight into the database the way webhook-config
// stores them (the secret encrypted with the benchmark's key), and announced like webhook-config announces a change.
import { randomUUID } from 'node:crypto';

/** `db`: a pg pool on the benchmark's database; `cipher`: a SecretCipher of BENCH_KEY; `changes`: an AmqpClient. */
export function webhookFixtures({ db, cipher, changes, generateWebhookSecret, publishWebhookChanged }) {
  async function createMerchant() {
    const merchantId = randomUUID();
    const integrationId = randomUUID();
    await db.query('INSERT INTO merchant (id, name) VALUES ($1, $2)', [merchantId, 'Bench merchant']);
    await db.query(
      `INSERT INTO integration (id, merchant_id, name, api_key_hash, api_key_prefix) VALUES ($1, $2, 'shop', $3, 'pk_bench')`,
      [integrationId, merchantId, Buffer.from(randomUUID())],
    );
    return { merchantId, integrationId };
  }

  /** A webhook of the merchant; `options`: retryOnError, maxPerSecond, enabled (false: disabled by its merchant). */
  async function createWebhook(merchantId, url, { retryOnError = false, maxPerSecond = null, enabled = true } = {}) {
    const id = randomUUID();
    const secret = generateWebhookSecret();
    await db.query(
      `INSERT INTO webhook (id, merchant_id, name, url, content_type, version, retry_on_error, events, max_per_second,
                            enabled, disabled_reason)
       VALUES ($1, $2, 'bench', $3, 'json', '2026-08-20', $4, '{transaction}', $5, $6, CASE WHEN $6 THEN NULL ELSE 'manual' END)`,
      [id, merchantId, url, retryOnError, maxPerSecond, enabled],
    );
    await db.query('INSERT INTO webhook_secret (id, webhook_id, ciphertext) VALUES ($1, $2, $3)', [
      randomUUID(),
      id,
      cipher.encrypt(secret, id),
    ]);
    await publishWebhookChanged(changes, { webhookId: id, merchantId }); // as webhook-config does
    return { id, secret, url };
  }

  return { createMerchant, createWebhook };
}
