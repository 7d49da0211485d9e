// Seeds the demo merchant once, through the platform (internal) APIs of the running apps, and returns the
// lines `npm start` prints. The API key and backend password exist in clear only in .data/demo.json
// (git-ignored, development only); the services themselves store only hashes.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';

const DEMO_NAME = 'Demo Shop';
const FILE = new URL('../.data/demo.json', import.meta.url);

function readSaved() {
  try {
    return JSON.parse(readFileSync(FILE, 'utf8'));
  } catch {
    return undefined;
  }
}

async function demoMerchantId(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT id FROM merchant WHERE name = $1 ORDER BY created_at LIMIT 1', [
      DEMO_NAME,
    ]);
    return rows[0]?.id;
  } finally {
    await client.end();
  }
}

function platformClient(baseUrl, token) {
  return async (path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`seed: POST ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  };
}

const card = (eci, source, version, flow) => ({
  eci,
  source,
  version,
  flow,
  cavv: `AAABBEg0VhI0VniQEjRWAAAAAAA=`,
  dsTransactionId: randomUUID(),
  acsTransactionId: randomUUID(),
  threeDSServerTransactionId: randomUUID(),
});

/** One payment of every kind a merchant will meet (see README: "The demo merchant"). */
function demoPayments(merchantId, integrationId) {
  const base = { merchantId, integrationId, psp: 'Payrexx Direct', currency: 'CHF' };
  return [
    {
      ...base,
      referenceId: 'demo-visa-challenge',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1990,
      authentication: card('05', '3ds', '2.2.0', 'challenge'),
      then: 'confirmed',
    },
    {
      ...base,
      referenceId: 'demo-mastercard-frictionless',
      type: 'e-commerce',
      paymentMethod: 'mastercard',
      amount: 4500,
      authentication: card('2', '3ds', '2.2', 'FRICTIONLESS'),
      then: 'confirmed',
    },
    {
      ...base,
      referenceId: 'demo-visa-attempted',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 2500,
      authentication: card('06', '3ds', '2.1.0', 'frictionless'),
    },
    {
      ...base,
      referenceId: 'demo-network-token',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 990,
      authentication: card('07', 'token', '2.2.0', 'challenge'),
      then: 'confirmed',
    },
    {
      ...base,
      referenceId: 'demo-twint',
      type: 'e-commerce',
      paymentMethod: 'twint',
      amount: 3200,
      authentication: null,
      then: 'confirmed',
    },
    {
      ...base,
      referenceId: 'demo-pos',
      type: 'pos',
      paymentMethod: 'mastercard',
      amount: 1250,
      authentication: card('05', '3ds', '2.2.0', 'challenge'),
      then: 'confirmed',
    },
    {
      ...base,
      referenceId: 'demo-apple-pay',
      type: 'e-commerce',
      paymentMethod: 'apple-pay',
      amount: 7800,
      authentication: card('07', 'token', null, null),
    },
    {
      ...base,
      referenceId: 'demo-historical-import',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 15000,
      authentication: null,
      createdAt: '2024-03-14T09:30:00.000Z',
      status: 'confirmed',
    },
  ];
}

export async function seedDemo({ env, ports }) {
  const databaseUrl = env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/payments';
  const token = env.PLATFORM_TOKEN || 'development-platform-token';
  const api = platformClient(`http://127.0.0.1:${ports['transaction-api']}`, token);
  const backend = platformClient(`http://127.0.0.1:${ports['webhook-config']}`, token);

  let saved = readSaved();
  const existing = await demoMerchantId(databaseUrl);
  if (!existing || saved?.merchantId !== existing) {
    let merchantId = existing;
    if (!merchantId) {
      merchantId = (await api('/internal/merchants', { name: DEMO_NAME })).id;
      const integration = await api(`/internal/merchants/${merchantId}/integrations`, { name: 'Online shop' });
      for (const { then, ...payment } of demoPayments(merchantId, integration.id)) {
        const transaction = await api('/internal/transactions', { status: 'waiting', ...payment });
        if (then) await api(`/internal/transactions/${transaction.uuid}/status`, { status: then });
      }
      await api('/internal/subscriptions', {
        merchantId,
        integrationId: integration.id,
        referenceId: 'demo-subscription',
        amount: 1500,
        currency: 'CHF',
        interval: 'P1M',
      });
      await api('/internal/payouts', { merchantId, amount: 125000, currency: 'CHF' });
      saved = { merchantId, apiKey: integration.apiKey };
    } else {
      // The demo merchant exists but its credentials file is gone: issue fresh credentials.
      const integration = await api(`/internal/merchants/${merchantId}/integrations`, {
        name: `Demo key ${new Date().toISOString()}`,
      });
      saved = { merchantId, apiKey: integration.apiKey };
    }
    const suffix = existing ? `+${randomBytes(3).toString('hex')}` : '';
    saved.email = `demo${suffix}@example.com`;
    saved.password = `Pay-${randomBytes(12).toString('base64url')}`;
    await backend(`/internal/merchants/${merchantId}/users`, { email: saved.email, password: saved.password });
    mkdirSync(new URL('.', FILE), { recursive: true });
    writeFileSync(FILE, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  }

  const api1 = `http://127.0.0.1:${ports['transaction-api']}`;
  return {
    lines: [
      `Demo merchant (${DEMO_NAME}, ${saved.merchantId}):`,
      `  API key:         ${saved.apiKey}`,
      `  backend login:   ${saved.email} / ${saved.password}   at http://127.0.0.1:${ports['webhook-config']}/`,
      // The platform (internal) API's token: shown only while it is the development default, never a configured one.
      `  platform token:  ${env.PLATFORM_TOKEN ? 'PLATFORM_TOKEN as configured' : token}   (Authorization: Bearer, /internal/…)`,
      '',
      'Try:',
      `  curl -H 'Authorization: Bearer ${saved.apiKey}' '${api1}/v1.17/transactions?limit=5'`,
      `  curl -H 'X-API-KEY: ${saved.apiKey}' '${api1}/v1.16/transactions?referenceId=demo-visa-challenge'`,
    ],
  };
}
