// transaction-api's platform API as the benchmarks call it: undici's request on a keep-alive pool, not fetch (the
// load generator shares the 2 cores with the system under test, and fetch cost it several times the CPU per call).
import { Pool } from 'undici';

/** The platform token every benchmark gives transaction-api (PLATFORM_TOKEN). */
export const PLATFORM_TOKEN = 'bench-platform-token-0123456789';

/**
 * `post(path, body)` resolves with the answer's JSON, or rejects on a status ≥ 300 (saying which) — and, with
 * `timeoutMs`, on no answer within it, so that every call settles whatever the API's state.
 */
export function platformApi(url, { connections = 16, timeoutMs } = {}) {
  const pool = new Pool(url, { connections });
  async function post(path, body) {
    const response = await pool.request({
      path,
      method: 'POST',
      headers: { authorization: `Bearer ${PLATFORM_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(timeoutMs !== undefined && { signal: AbortSignal.timeout(timeoutMs) }),
    });
    if (response.statusCode >= 300) throw new Error(`${path}: ${response.statusCode} ${await response.body.text()}`);
    return response.body.json();
  }
  return { post, close: () => pool.close() };
}

/** A card payment of the merchant's integration as the benchmarks record it (`POST /internal/transactions`). */
export function cardPayment(merchantId, integrationId, referenceId, status = 'confirmed') {
  return {
    merchantId,
    integrationId,
    referenceId,
    status,
    psp: 'Payrexx Direct',
    type: 'e-commerce',
    paymentMethod: 'visa',
    amount: 1990,
    currency: 'CHF',
    authentication: { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
  };
}
