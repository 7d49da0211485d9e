import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, Get, Logger, Module, Param, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { isUUID, IsOptional, IsString } from 'class-validator';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { listen, StdoutCapture, waitFor } from '#testing';
import { createHttpApp } from './http-app.factory.js';

class ItemDto {
  @IsOptional()
  @IsString()
  name?: string;
}

/** Logs while answering, before and after an await and after the body is read. */
@Controller()
class ItemController {
  private readonly logger = new Logger('Items');

  @Get('items/:id')
  async read(@Param('id') id: string): Promise<{ id: string }> {
    this.logger.log(`reading item ${id}`);
    await sleep(5);
    this.logger.warn({ msg: 'item read', itemId: id });
    return { id };
  }

  @Post('items')
  create(@Body() item: ItemDto): ItemDto {
    this.logger.log('creating an item');
    return item;
  }

  @Get('broken')
  broken(): never {
    throw new Error('the handler broke');
  }

  @Get('health/live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('metrics')
  metrics(): string {
    return '';
  }
}

@Module({ controllers: [ItemController] })
class ItemModule {}

const GENERATED = (id: string | null) => typeof id === 'string' && isUUID(id, 7);
const SECRETS = {
  authorization: 'Bearer pk_test_authorization_secret_0123456789',
  'x-api-key': 'pk_test_x_api_key_secret_0123456789',
  cookie: 'wc_session=cookie_secret_0123456789',
  'x-csrf-token': 'csrf_secret_0123456789',
};

describe('request ids and the access log (e2e over HTTP, LOG_FORMAT=json)', () => {
  let app: NestFastifyApplication;
  let baseUrl: string;
  let output: StdoutCapture;

  beforeAll(async () => {
    output = new StdoutCapture();
    app = await createHttpApp(ItemModule, { name: 'items', problems: [], logLevel: 'debug', logFormat: 'json' });
    baseUrl = await listen(app);
  });
  afterAll(async () => {
    await app.close();
    output.restore();
  });

  const linesOf = (requestId: string) => output.jsonLines().filter((line) => line.requestId === requestId);
  /** The request's lines, once its access line (written after the answer) is there. */
  const requestLines = (requestId: string) =>
    waitFor(() => (linesOf(requestId).some((line) => 'status' in line) ? linesOf(requestId) : undefined), {
      what: `the access line of ${requestId}`,
    });
  const accessLine = async (requestId: string) => (await requestLines(requestId)).find((line) => 'status' in line)!;

  it('takes a valid x-request-id, answers with it, and every line of the request carries it', async () => {
    for (const requestId of ['abc.DEF_123-x', 'r'.repeat(128)]) {
      const answer = await fetch(`${baseUrl}/items/42?referenceId=customer-ref-9876`, {
        headers: { 'x-request-id': requestId },
      });
      expect([answer.status, answer.headers.get('x-request-id')]).toEqual([200, requestId]);
      const lines = await requestLines(requestId);
      expect(lines.map(({ level, context, msg }) => ({ level, context, msg }))).toEqual([
        { level: 'info', context: 'Items', msg: 'reading item 42' },
        { level: 'warn', context: 'Items', msg: 'item read' },
        { level: 'info', context: undefined, msg: 'GET /items/:id 200' },
      ]);
      expect(lines[1].itemId).toBe('42');
      expect(lines[2]).toEqual(
        expect.objectContaining({ method: 'GET', route: '/items/:id', status: 200, durationMs: expect.any(Number) }),
      );
    }
    // The route template is logged, never the URL: a query may hold customer data.
    expect(output.text).not.toContain('customer-ref-9876');
  });

  it('keeps the request id in lines logged after the body is read, however late it arrives', async () => {
    const body = JSON.stringify({ name: 'a late body' });
    const answer = await rawRequest(
      baseUrl,
      `POST /items HTTP/1.1\r\nx-request-id: with-a-body\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n`,
      body,
    );
    expect(answer.status).toBe(201);
    expect((await requestLines('with-a-body')).map((line) => line.msg)).toEqual([
      'creating an item',
      'POST /items 201',
    ]);
  });

  it('generates a UUID for a missing or invalid x-request-id, and logs nothing of the invalid one', async () => {
    const invalid = ['', 'x'.repeat(129), 'two words', 'semi;colon', 'slash/ed', 'a,b'];
    for (const sent of [undefined, ...invalid]) {
      const answer = await fetch(`${baseUrl}/items/7`, { headers: sent === undefined ? {} : { 'x-request-id': sent } });
      const requestId = answer.headers.get('x-request-id');
      expect({ sent, generated: GENERATED(requestId) }).toEqual({ sent, generated: true });
      expect((await accessLine(requestId!)).status).toBe(200);
    }
    expect(output.text).not.toContain('x'.repeat(129));
    expect(output.text).not.toContain('semi;colon');
  });

  it('answers every refusal with its request id and logs its access line: 404, 415, 500, a malformed path', async () => {
    const notFound = await fetch(`${baseUrl}/nothing-here?q=secret-query`, { headers: { 'x-request-id': 'r-404' } });
    const unsupported = await fetch(`${baseUrl}/items`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-request-id': 'r-415' },
      body: 'text',
    });
    const broken = await fetch(`${baseUrl}/broken`, { headers: { 'x-request-id': 'r-500' } });
    const malformed = await rawRequest(baseUrl, 'GET /items/%E0%A4%A HTTP/1.1\r\nx-request-id: r-400\r\n');
    expect(
      [notFound, unsupported, broken].map((answer) => [answer.status, answer.headers.get('x-request-id')]),
    ).toEqual([
      [404, 'r-404'],
      [415, 'r-415'],
      [500, 'r-500'],
    ]);
    expect([malformed.status, malformed.headers['x-request-id']]).toEqual([400, 'r-400']);

    expect(await accessLine('r-404')).toEqual(expect.objectContaining({ route: 'unmatched', status: 404 }));
    expect(await accessLine('r-415')).toEqual(expect.objectContaining({ route: '/items', status: 415 }));
    expect(await accessLine('r-400')).toEqual(expect.objectContaining({ status: 400 }));
    const failed = await requestLines('r-500');
    expect(failed.map(({ level, msg }) => [level, msg.split('\n')[0]])).toEqual([
      ['error', expect.stringContaining('Unhandled error on GET /broken: Error: the handler broke')],
      ['info', 'GET /broken 500'],
    ]);
    expect(output.text).not.toContain('secret-query');
  });

  it("answers a request Node's HTTP parser refuses with a new request id, logged with its status", async () => {
    const answer = await rawRequest(
      baseUrl,
      `GET /items/1 HTTP/1.1\r\nx-request-id: r-431\r\nx-huge: ${'h'.repeat(20_000)}\r\n`,
    );
    const requestId = answer.headers['x-request-id'];
    expect([answer.status, GENERATED(requestId)]).toEqual([431, true]);
    expect(await accessLine(requestId)).toEqual(expect.objectContaining({ level: 'info', status: 431 }));
  });

  it('logs health and metrics probes at debug, other requests at info', async () => {
    for (const path of ['/health/live', '/metrics', '/items/1']) {
      await fetch(`${baseUrl}${path}`, { headers: { 'x-request-id': `probe${path.replaceAll('/', '-')}` } });
    }
    expect((await accessLine('probe-health-live')).level).toBe('debug');
    expect((await accessLine('probe-metrics')).level).toBe('debug');
    expect((await accessLine('probe-items-1')).level).toBe('info');
  });

  it('never logs credentials sent in headers', async () => {
    for (const path of ['/items/1', '/nothing-here', '/broken']) {
      await fetch(`${baseUrl}${path}`, {
        headers: { ...SECRETS, 'x-request-id': `secrets${path.replaceAll('/', '-')}` },
      });
    }
    await accessLine('secrets-broken');
    for (const secret of Object.values(SECRETS)) expect(output.text).not.toContain(secret.split('=').pop());
  });

  it('writes only JSON lines with time, level, app and msg, and no colour codes', () => {
    const lines = output.jsonLines();
    expect(lines.length).toBeGreaterThan(20);
    for (const line of lines) {
      expect(line).toEqual(
        expect.objectContaining({
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          level: expect.stringMatching(/^(trace|debug|info|warn|error|fatal)$/),
          app: 'items',
          msg: expect.any(String),
        }),
      );
    }
    expect(output.text).not.toContain('\x1b');
  });
});

/** Writes a request as it is on a new connection, its body a moment later; resolves the answer's status and headers. */
function rawRequest(
  baseUrl: string,
  head: string,
  body = '',
): Promise<{ status: number; headers: Record<string, string> }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => {
      socket.write(`${head}host: x\r\nconnection: close\r\n\r\n`);
      if (body) setTimeout(() => socket.write(body), 50);
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [statusLine, ...fields] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n')[0].split('\r\n');
      const headers = Object.fromEntries(
        fields.map((field) => [
          field.slice(0, field.indexOf(':')).toLowerCase(),
          field.slice(field.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
  });
}
