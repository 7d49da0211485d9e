import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { createValidationPipe, ProblemException, type FieldError } from '#platform';
import { CreateWebhookDto } from './create-webhook.dto.js';
import { UpdateWebhookDto } from './update-webhook.dto.js';

/**
 * The rules of custom headers as the request pipe applies them (CONTRACT §5, issue #34): at most 10, names of RFC 7230
 * token characters and not reserved (any letter case), each name once (any letter case), values 1–1,024 printable
 * ASCII characters without CR/LF or other controls. Every refusal names the entry, and the name when it is the
 * name's fault; no message ever contains a value.
 */
const pipe = createValidationPipe();
const base = { name: 'Orders', url: 'https://shop.example/h', events: ['transaction'] };

async function errorsOf(
  metatype: typeof CreateWebhookDto | typeof UpdateWebhookDto,
  headers: unknown,
): Promise<FieldError[]> {
  const body = metatype === CreateWebhookDto ? { ...base, headers } : { headers };
  const metadata: ArgumentMetadata = { type: 'body', metatype };
  try {
    await pipe.transform(body, metadata);
    return [];
  } catch (error) {
    if (!(error instanceof ProblemException)) throw error;
    return (error.problem.errors ?? []).filter((e) => e.field.startsWith('headers'));
  }
}

const create = (headers: unknown) => errorsOf(CreateWebhookDto, headers);
const patch = (headers: unknown) => errorsOf(UpdateWebhookDto, headers);

describe('custom header rules', () => {
  it('accepts up to 10 headers of token names and printable values', async () => {
    const ten = Array.from({ length: 10 }, (_, i) => ({ name: `X-Custom-${i}`, value: `v${i}` }));
    expect(await create(ten)).toEqual([]);
    expect(await create([{ name: "Authorization!#$%&'*+.^_`|~", value: 'Bearer a b=c;d"e' }])).toEqual([]);
    expect(await create([{ name: 'X-Long', value: 'x'.repeat(1024) }])).toEqual([]);
    expect(await create([])).toEqual([]);
  });

  it('refuses an 11th header, a non-list and entries that are not objects', async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => ({ name: `X-${i}`, value: 'v' }));
    expect(await create(eleven)).toEqual([{ field: 'headers', message: 'may have at most 10 entries' }]);
    expect((await create('X-A: b')).map((e) => e.field)).toEqual(['headers']);
    expect((await create(null)).map((e) => e.field)).toEqual(['headers']);
    expect((await create(['X-A']))[0].field).toBe('headers');
  });

  it.each([
    'host',
    'Host',
    'CONTENT-TYPE',
    'Content-Length',
    'transfer-encoding',
    'Connection',
    'User-Agent',
    'traceparent',
    'X-Webhook-Signature',
    'webhook-id',
    'Webhook-Signature',
    'WEBHOOK-ANYTHING',
    'Proxy-Authorization',
  ])('refuses the reserved name %s in any letter case, naming it', async (name) => {
    const errors = await create([{ name, value: 'v' }]);
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('headers.0.name');
    expect(errors[0].message).toContain(`"${name}"`);
    expect(errors[0].message).toContain('reserved');
  });

  it.each(['X Space', 'X:Colon', 'X(paren)', 'Ä-Umlaut', 'X\r\nInjected', '', 'x'.repeat(101), 'X"Q', 'X/Slash'])(
    'refuses the name %j (not a token of 1–100 characters)',
    async (name) => {
      const errors = await create([{ name, value: 'v' }]);
      expect(errors.map((e) => e.field)).toEqual(['headers.0.name']);
    },
  );

  it('refuses a name given twice in any letter case, naming it', async () => {
    const errors = await create([
      { name: 'X-Token', value: 'a' },
      { name: 'x-token', value: 'b' },
    ]);
    expect(errors).toEqual([
      { field: 'headers', message: 'has "x-token" more than once (names are case-insensitive)' },
    ]);
  });

  it.each([
    ['CR/LF', 'abc\r\nX-Injected: 1'],
    ['LF', 'abc\ndef'],
    ['NUL', 'abc\u0000'],
    ['tab', 'a\tb'],
    ['DEL', 'a\u007f'],
    ['non-ASCII', 'grüezi'],
    ['empty', ''],
    ['too long', 'x'.repeat(1025)],
    ['leading space', ' abc'],
    ['trailing space', 'abc '],
  ])('refuses a value with %s, without repeating it', async (_what, value) => {
    const errors = await create([{ name: 'X-Secretish', value }]);
    expect(errors.map((e) => e.field)).toEqual(['headers.0.value']);
    if (value.length > 1) expect(errors[0].message).not.toContain(value.trim());
  });

  it('needs a value on create; a PATCH entry without one keeps the stored value (and ignores valueLast4)', async () => {
    expect(await create([{ name: 'X-A' }])).toEqual([{ field: 'headers.0.value', message: 'is required' }]);
    expect(await patch([{ name: 'X-A' }, { name: 'X-B', valueLast4: '1234' }, { name: 'X-C', value: 'new' }])).toEqual(
      [],
    );
    expect((await patch([{ name: 'X-A', value: 'a\r\nb' }])).map((e) => e.field)).toEqual(['headers.0.value']);
    expect((await patch([{ name: 'X-A', other: 1 }])).map((e) => e.field)).toEqual(['headers.0.other']);
  });
});
