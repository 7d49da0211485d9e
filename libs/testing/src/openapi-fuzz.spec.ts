import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostileValues, operationsOf, runOpenApiFuzz, type OpenApiDocument } from './openapi-fuzz.js';

/** A small document: one read with a query parameter, one write with a body. */
const DOCUMENT: OpenApiDocument = {
  paths: {
    '/things': {
      get: {
        parameters: [{ name: 'q', in: 'query', schema: { type: 'string', maxLength: 10 } }],
        security: [{ key: [] }],
      },
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        security: [{ key: [] }],
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { name: { type: 'string', maxLength: 5 }, at: { type: 'string', format: 'date-time' } },
        required: ['name'],
      },
    },
  },
};

/**
 * A server with the faults the tier is there to find: a 500 for a NUL in the query, a refusal that names no field,
 * one that echoes the input, a refused write that is stored anyway, and every timestamp accepted.
 */
function faultyServer(stored: string[]): Server {
  return createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const problem = (status: number, detail: string, errors?: unknown) => {
        response.writeHead(status, { 'content-type': 'application/problem+json' });
        response.end(JSON.stringify({ type: 'x', title: 'x', status, detail, errors }));
      };
      if (request.headers['x-key'] !== 'valid') return problem(401, 'no key');
      if (request.method === 'GET') {
        if ((request.url ?? '').includes('%00')) return problem(500, 'boom');
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end('[]');
      }
      let thing: { name?: unknown } | null;
      try {
        thing = JSON.parse(body) as { name?: unknown } | null;
      } catch {
        return problem(400, 'not JSON');
      }
      if (typeof thing?.name !== 'string') return problem(400, 'refused');
      stored.push(thing.name);
      if (thing.name.length > 5)
        return problem(400, `too long: ${thing.name}`, [{ field: 'name', message: 'too long' }]);
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
}

describe('the OpenAPI fuzz tier', () => {
  const stored: string[] = [];
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    server = faultyServer(stored);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reads every operation of a document, its body schema resolved and its security named', () => {
    expect(
      operationsOf(DOCUMENT).map(({ key, security, body }) => [key, security, Object.keys(body?.properties ?? {})]),
    ).toEqual([
      ['GET /things', ['key'], []],
      ['POST /things', ['key'], ['name', 'at']],
    ]);
  });

  it('sends values at and over each documented maximum, and far over it', () => {
    const labels = hostileValues({ type: 'string', maxLength: 10 }, 'body').map(({ label, json }) =>
      typeof json === 'string' ? `${label}: ${json.length}` : label,
    );
    expect(labels).toEqual(
      expect.arrayContaining(['at maxLength 10: 10', 'over maxLength 10: 11', 'far over any limit (100 KB): 102400']),
    );
  });

  it('reports each fault of a faulty server, with the operation, the field and the value', async () => {
    const report = await runOpenApiFuzz({
      baseUrl,
      document: DOCUMENT,
      credentials: () => ({ 'x-key': 'valid' }),
      body: () => ({ name: 'ok' }),
      snapshot: () => Promise.resolve([...stored]),
      seed: 1,
      randomPerTarget: 2,
    });
    const found = new Set(
      report.findings.map(({ operation, target, problem }) => `${operation} ${target}: ${problem.split(':')[0]}`),
    );
    expect([...found]).toEqual(
      expect.arrayContaining([
        'GET /things query q: answered 500',
        'POST /things body name: a 400 that does not name name',
        'POST /things body name: echoes more than a short excerpt of the input',
        'POST /things body name: a refused request changed stored data',
        'POST /things body at: accepted a timestamp without a zone or an impossible date',
      ]),
    );
    expect(report.operations).toEqual(['GET /things', 'POST /things']);
  });
});
