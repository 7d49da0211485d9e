import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BeforeApplicationShutdown, Body, Controller, Get, Injectable, Module, Param, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsOptional, IsString } from 'class-validator';
import { connect } from 'node:net';
import { listen } from '#testing';
import { createHttpApp } from './http-app.factory.js';

class NoteDto {
  @IsOptional()
  @IsString()
  text?: string;
}

/** Counts the notes it is given, so a refused request can be shown to reach no handler. */
@Controller('notes')
class NoteController {
  static created = 0;

  @Post()
  create(@Body() note: NoteDto): NoteDto {
    NoteController.created += 1;
    return note;
  }

  @Get(':id')
  get(@Param('id') id: string): { id: string } {
    return { id };
  }
}

/** Holds the shutdown in its first step until the test lets it go on. */
@Injectable()
class ShutdownGate implements BeforeApplicationShutdown {
  static reached: () => void = () => undefined;
  static release: Promise<void> = Promise.resolve();

  beforeApplicationShutdown(): Promise<void> {
    ShutdownGate.reached();
    return ShutdownGate.release;
  }
}

@Module({ controllers: [NoteController], providers: [ShutdownGate] })
class NoteModule {}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` as it is on a new connection and reads the answer until the server closes it. */
function rawRequest(baseUrl: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...body] = text.split('\r\n\r\n');
      const [statusLine, ...fields] = head.split('\r\n');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers: Object.fromEntries(
          fields.map((field) => [
            field.slice(0, field.indexOf(':')).toLowerCase(),
            field.slice(field.indexOf(':') + 2),
          ]),
        ),
        body: body.join('\r\n\r\n'),
      });
    });
  });
}

/** The answer is a problem of this status with exactly the four members, and quotes nothing of `sent`. */
function expectProblem(answer: { status: number; contentType: string; body: string }, status: number, sent: string) {
  expect(answer.status).toBe(status);
  expect(answer.contentType).toMatch(/^application\/problem\+json(;|$)/);
  const problem = JSON.parse(answer.body) as Record<string, unknown>;
  expect(problem).toEqual({
    type: expect.stringMatching(/^urn:problem:[a-z-]+$/),
    title: expect.any(String),
    status,
    detail: expect.any(String),
  });
  expect(answer.body).not.toContain(sent);
  return problem;
}

const fetched = async (response: Response) => ({
  status: response.status,
  contentType: response.headers.get('content-type') ?? '',
  headers: response.headers,
  body: await response.text(),
});

const raw = (answer: RawAnswer) => ({ ...answer, contentType: answer.headers['content-type'] ?? '' });

describe('createHttpApp: every refusal is a problem (e2e over HTTP)', () => {
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    app = await createHttpApp(NoteModule, { name: 'notes', problems: [], logLevel: 'error', logFormat: 'json' });
    baseUrl = await listen(app);
  });
  afterAll(async () => {
    await app.close();
  });

  const post = (body: string | Uint8Array | undefined, headers: Record<string, string>) =>
    fetch(`${baseUrl}/notes`, { method: 'POST', headers, body }).then(fetched);

  it('reads request bodies only as JSON: any other type, or none declared, is 415 and reaches no handler', async () => {
    const before = NoteController.created;
    for (const [contentType, body] of [
      ['application/x-www-form-urlencoded', 'text=sent-as-a-form'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nsent-as-a-form\r\n--x--\r\n',
      ],
      ['text/plain', '{"text":"sent-as-a-form"}'],
      ['application/xml', '<text>sent-as-a-form</text>'],
    ]) {
      const answer = await post(body, { 'content-type': contentType });
      const problem = expectProblem(answer, 415, 'sent-as-a-form');
      expect([contentType, problem.type, problem.detail]).toEqual([
        contentType,
        'urn:problem:unsupported-media-type',
        expect.stringContaining('application/json'),
      ]);
    }
    // A body without a Content-Type (fetch sends none for bytes).
    expectProblem(await post(new TextEncoder().encode('{"text":"sent-as-a-form"}'), {}), 415, 'sent-as-a-form');
    expect(NoteController.created).toBe(before);
  });

  it('takes JSON with parameters, and no body at all as {} whatever the Content-Type', async () => {
    const json = await post('{"text":"hello"}', { 'content-type': 'Application/JSON; charset=utf-8' });
    expect([json.status, JSON.parse(json.body)]).toEqual([201, { text: 'hello' }]);
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/json']) {
      const empty = await post(undefined, { 'content-type': contentType });
      expect([contentType, empty.status, empty.body]).toEqual([contentType, 201, '{}']);
    }
  });

  it('answers a path parameter over the router limit 414 and a malformed path 400, quoting neither', async () => {
    const long = 'x'.repeat(500);
    const tooLong = await fetch(`${baseUrl}/notes/${long}`).then(fetched);
    expect(expectProblem(tooLong, 414, long.slice(0, 50)).type).toBe('urn:problem:uri-too-long');
    const malformed = raw(
      await rawRequest(baseUrl, 'GET /notes/%E0%A4%Aquoted HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'),
    );
    expect(expectProblem(malformed, 400, 'quoted').type).toBe('urn:problem:bad-request');
  });

  it("answers header fields over Node's limit 431 and a request Node cannot parse 400, on the socket", async () => {
    const huge = 'h'.repeat(20_000);
    const tooLarge = await rawRequest(baseUrl, `GET /notes/1 HTTP/1.1\r\nhost: x\r\nx-huge: ${huge}\r\n\r\n`);
    const problem = expectProblem(raw(tooLarge), 431, 'x-huge');
    expect(problem.type).toBe('urn:problem:request-header-fields-too-large');
    expect(tooLarge.body).not.toContain('hhhh');
    expect(tooLarge.headers.connection).toBe('close');
    expect(Number(tooLarge.headers['content-length'])).toBe(Buffer.byteLength(tooLarge.body));

    const bad = await rawRequest(baseUrl, 'GET /notes/1 HTTP/1.1\r\nhost: x\r\nbad header: quoted-value\r\n\r\n');
    expect(expectProblem(raw(bad), 400, 'quoted-value').type).toBe('urn:problem:bad-request');
    expect(bad.headers.connection).toBe('close');
  });
});

describe('createHttpApp: shutting down (e2e over HTTP)', () => {
  it('answers 503 problem with Retry-After and Connection: close from the start of shutdown', async () => {
    const app = await createHttpApp(NoteModule, { name: 'notes', problems: [], logLevel: 'error', logFormat: 'json' });
    const baseUrl = await listen(app);
    expect((await fetch(`${baseUrl}/notes/1`)).status).toBe(200);

    let release = () => undefined as void;
    ShutdownGate.release = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (ShutdownGate.reached = resolve));
    const closed = app.close();
    await reached;
    try {
      for (const answer of [
        await fetch(`${baseUrl}/notes/1`).then(fetched),
        await post(baseUrl, '{"text":"during-shutdown"}'),
      ]) {
        expect(expectProblem(answer, 503, 'during-shutdown').type).toBe('urn:problem:unavailable');
        expect(answer.headers.get('retry-after')).toBe('1');
        expect(answer.headers.get('connection')).toBe('close');
      }
    } finally {
      release();
      await closed;
    }
  });

  const post = (baseUrl: string, body: string) =>
    fetch(`${baseUrl}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(fetched);
});
