// The bare baseline of the API benchmark: node:http + pg, no framework, running the same indexed queries as
// transaction-api's merchant read API for one fixed merchant (no auth, no validation beyond the minimum).
// Also the same write statements (a transaction, or a status change, together with its outbox event, in one
// statement each), to show what the machine allows without the framework. Env: DATABASE_URL, MERCHANT_ID, PORT, POOL_SIZE.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
// The columns and the event JSON exactly as transaction-api's statements have them (the benchmark builds the app
// first).
import {
  TRANSACTION_COLUMNS as COLUMNS,
  transactionEventJson,
} from '../../dist/apps/transaction-api/src/transaction/transaction.row.js';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 20) });
const merchantId = process.env.MERCHANT_ID;

const render = (row) => ({
  uuid: row.uuid,
  referenceId: row.referenceId,
  status: row.status,
  psp: row.psp,
  type: row.type,
  paymentMethod: row.paymentMethod,
  amount: Number(row.amount),
  currency: row.currency,
  integrationId: row.integrationId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  '3dsecure': row.threeDSecure,
});
const send = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const readBody = async (req) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};
async function create(req, res) {
  const body = await readBody(req);
  const now = new Date();
  const row = {
    uuid: randomUUID(),
    referenceId: null,
    status: body.status,
    psp: body.psp,
    type: body.type,
    paymentMethod: body.paymentMethod,
    amount: body.amount,
    currency: body.currency,
    integrationId: null,
    createdAt: now,
    updatedAt: now,
    threeDSecure: null,
  };
  await pool.query({
    name: 'create',
    text: `WITH inserted AS (
             INSERT INTO transaction (uuid, merchant_id, status, psp, type, payment_method, amount, currency, creation_fingerprint, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, '\\x00', $9, $9) ON CONFLICT (uuid) DO NOTHING RETURNING *
           ), appended AS (
             INSERT INTO outbox_event (id, type, subject_id, payload)
             SELECT $10, $11, uuid, ${transactionEventJson('inserted', 10)} FROM inserted
           )
           SELECT 1 FROM inserted`,
    values: [
      row.uuid,
      merchantId,
      row.status,
      row.psp,
      row.type,
      row.paymentMethod,
      row.amount,
      row.currency,
      now,
      randomUUID(),
      'transaction.created',
    ],
  });
  send(res, 201, render(row));
}

async function changeStatus(req, res, uuid) {
  const body = await readBody(req);
  const updatedAt = new Date();
  const { rows } = await pool.query({
    name: 'change',
    text: `WITH current AS (
             SELECT * FROM transaction WHERE uuid = $1
           ), changed AS (
             UPDATE transaction t SET status = $2, updated_at = $3 FROM current c
              WHERE t.uuid = c.uuid AND c.status = 'waiting' AND t.status = c.status AND t.updated_at = c.updated_at
             RETURNING t.*
           ), appended AS (
             INSERT INTO outbox_event (id, type, subject_id, payload)
             SELECT $4, $5, uuid, ${transactionEventJson('changed', 4)} FROM changed
           )
           SELECT ${COLUMNS} FROM current`,
    values: [uuid, body.status, updatedAt, randomUUID(), 'transaction.status_changed'],
  });
  send(res, 200, { ...render(rows[0]), status: body.status, updatedAt: updatedAt.toISOString() });
}

/** The catch-up walk: `updatedFrom=…&order=updatedAt`, oldest change first, as transaction-api pages it. */
async function catchUp(res, url) {
  const limit = Number(url.searchParams.get('limit') ?? 20);
  const from = new Date(url.searchParams.get('updatedFrom'));
  const cursor = url.searchParams.get('cursor');
  let rows;
  if (cursor) {
    const [time, uuid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    ({ rows } = await pool.query({
      name: 'catch-up-c',
      text: `SELECT ${COLUMNS} FROM transaction WHERE merchant_id = $1 AND updated_at >= $2 AND (updated_at, uuid) > ($3, $4)
             ORDER BY updated_at, uuid LIMIT $5`,
      values: [merchantId, from, new Date(time), uuid, limit + 1],
    }));
  } else {
    ({ rows } = await pool.query({
      name: 'catch-up',
      text: `SELECT ${COLUMNS} FROM transaction WHERE merchant_id = $1 AND updated_at >= $2 ORDER BY updated_at, uuid LIMIT $3`,
      values: [merchantId, from, limit + 1],
    }));
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > limit
      ? Buffer.from(JSON.stringify([last.updatedAt.getTime(), last.uuid, 'updatedAt'])).toString('base64url')
      : null;
  send(res, 200, { data: page.map(render), nextCursor });
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'POST' && url.pathname === '/transactions') return await create(req, res);
    const status = /^\/transactions\/([0-9a-f-]{36})\/status$/.exec(url.pathname);
    if (req.method === 'POST' && status) return await changeStatus(req, res, status[1]);
    const one = /^\/transactions\/([0-9a-f-]{36})$/.exec(url.pathname);
    if (one) {
      const { rows } = await pool.query({
        name: 'one',
        text: `SELECT ${COLUMNS} FROM transaction WHERE uuid = $1 AND merchant_id = $2`,
        values: [one[1], merchantId],
      });
      return rows.length ? send(res, 200, render(rows[0])) : send(res, 404, { status: 404 });
    }
    if (url.pathname === '/transactions' && url.searchParams.get('order') === 'updatedAt')
      return await catchUp(res, url);
    if (url.pathname === '/transactions') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const cursor = url.searchParams.get('cursor');
      let rows;
      if (cursor) {
        const [time, uuid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
        ({ rows } = await pool.query({
          name: 'page-c',
          text: `SELECT ${COLUMNS} FROM transaction WHERE merchant_id = $1 AND (created_at, uuid) < ($2, $3) ORDER BY created_at DESC, uuid DESC LIMIT $4`,
          values: [merchantId, new Date(time), uuid, limit + 1],
        }));
      } else {
        ({ rows } = await pool.query({
          name: 'page',
          text: `SELECT ${COLUMNS} FROM transaction WHERE merchant_id = $1 ORDER BY created_at DESC, uuid DESC LIMIT $2`,
          values: [merchantId, limit + 1],
        }));
      }
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      const nextCursor =
        rows.length > limit
          ? Buffer.from(JSON.stringify([last.createdAt.getTime(), last.uuid])).toString('base64url')
          : null;
      return send(res, 200, { data: page.map(render), nextCursor });
    }
    send(res, 404, { status: 404 });
  } catch (error) {
    send(res, 500, { status: 500, detail: String(error.message) });
  }
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.send?.({ port: server.address().port });
});
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
