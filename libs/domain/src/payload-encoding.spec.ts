import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { payoutRecord, subscriptionRecord, transactionRecord } from '../test/fixtures.js';
import { phpParseStr, phpView, startPhpPostServer, type PhpPostServer } from '../test/php.js';
import {
  PhpPostEncodingError,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_MIME_TYPES,
  encodeJson,
  encodePayload,
  encodePhpPost,
  isWebhookContentType,
  type PayloadObject,
  type WebhookContentType,
} from './payload-encoding.js';
import { WEBHOOK_VERSIONS, renderWebhookPayload, type WebhookSubject } from './webhook-version.js';

/** The tree PHP must rebuild, as JSON text (key order included). */
const expectedPhp = (tree: unknown): string => JSON.stringify(phpView(tree));

let server: PhpPostServer | undefined;

beforeAll(async () => {
  server = await startPhpPostServer();
});

afterAll(async () => {
  await server?.stop();
});

/** Check every tree with `parse_str` (one PHP process) and with a real `$_POST` (one request each). */
async function expectPhpRebuilds(trees: readonly PayloadObject[]): Promise<void> {
  const bodies = trees.map((tree) => encodePhpPost(tree));
  const parsed = await phpParseStr(bodies);
  for (const [index, tree] of trees.entries()) {
    expect({ body: bodies[index], parse_str: JSON.stringify(parsed[index]) }).toStrictEqual({
      body: bodies[index],
      parse_str: expectedPhp(tree),
    });
    const posted = await server!.post(bodies[index]!);
    expect({ body: bodies[index], $_POST: JSON.stringify(posted) }).toStrictEqual({
      body: bodies[index],
      $_POST: expectedPhp(tree),
    });
  }
}

describe('content types', () => {
  it('maps json and php-post to their MIME types', () => {
    expect(WEBHOOK_CONTENT_TYPES).toStrictEqual(['json', 'php-post']);
    expect(WEBHOOK_MIME_TYPES).toStrictEqual({
      json: 'application/json',
      'php-post': 'application/x-www-form-urlencoded',
    });
    expect(isWebhookContentType('php-post')).toBe(true);
    expect(isWebhookContentType('form')).toBe(false);
    expect(isWebhookContentType(null)).toBe(false);
  });

  it('encodePayload returns the body with its content type', () => {
    const tree = { payout: { id: 'p1', amount: 5 } };
    expect(encodePayload('json', tree)).toStrictEqual({
      contentType: 'application/json',
      body: '{"payout":{"id":"p1","amount":5}}',
    });
    expect(encodePayload('php-post', tree)).toStrictEqual({
      contentType: 'application/x-www-form-urlencoded',
      body: 'payout[id]=p1&payout[amount]=5',
    });
    expect(() => encodePayload('xml' as WebhookContentType, tree)).toThrow(
      new RangeError('Unknown webhook content type: xml'),
    );
  });
});

describe('encodeJson', () => {
  it('is the compact JSON of the tree, non-ASCII kept as UTF-8', () => {
    expect(encodeJson({ a: { b: null, c: [1, true], d: 'Zürich 😀' } })).toBe(
      '{"a":{"b":null,"c":[1,true],"d":"Zürich 😀"}}',
    );
  });
});

describe('encodePhpPost — format', () => {
  it('writes the contract example literally', () => {
    expect(encodePhpPost({ transaction: { '3dsecure': { eci: '05' } } })).toBe('transaction[3dsecure][eci]=05');
  });

  it('sends null as an empty value, booleans as 1/0 and numbers as decimal text', () => {
    expect(
      encodePhpPost({ t: { referenceId: null, retry: true, test: false, amount: 1990, rate: -0.5, zero: -0 } }),
    ).toBe('t[referenceId]=&t[retry]=1&t[test]=0&t[amount]=1990&t[rate]=-0.5&t[zero]=0');
  });

  it('writes lists with indices', () => {
    expect(encodePhpPost({ a: ['x', ['y', 'z']] })).toBe('a[0]=x&a[1][0]=y&a[1][1]=z');
  });

  it('percent-encodes reserved characters, spaces, % and non-ASCII as UTF-8', () => {
    expect(encodePhpPost({ q: 'a&b=c+d e%f[g]h' })).toBe('q=a%26b%3Dc%2Bd%20e%25f%5Bg%5Dh');
    expect(encodePhpPost({ city: 'Zürich €😀' })).toBe('city=Z%C3%BCrich%20%E2%82%AC%F0%9F%98%80');
    expect(encodePhpPost({ t: { 'k-._~': 'A-Z_a.z~0' } })).toBe('t[k-._~]=A-Z_a.z~0');
  });

  it('sends a lone surrogate as U+FFFD', () => {
    expect(encodePhpPost({ s: 'a\ud800b' })).toBe('s=a%EF%BF%BDb');
  });

  it('keeps the key of an empty object or list with an empty value', () => {
    expect(encodePhpPost({ a: {}, b: [], c: { d: {} } })).toBe('a=&b=&c[d]=');
    expect(encodePhpPost({})).toBe('');
  });

  it('follows JSON for values JSON cannot express', () => {
    const tree = {
      a: undefined,
      b: () => 1,
      c: Symbol('c'),
      d: [undefined, () => 1, Symbol('d'), Number.NaN, Number.POSITIVE_INFINITY],
      e: new Date('2026-11-22T10:00:00Z'),
      f: { only: undefined },
      // eslint-disable-next-line no-sparse-arrays
      g: [, 'x'],
    } as unknown as PayloadObject;
    expect(JSON.parse(encodeJson(tree))).toStrictEqual({
      d: [null, null, null, null, null],
      e: '2026-11-22T10:00:00.000Z',
      f: {},
      g: [null, 'x'],
    });
    expect(encodePhpPost(tree)).toBe('d[0]=&d[1]=&d[2]=&d[3]=&d[4]=&e=2026-11-22T10%3A00%3A00.000Z&f=&g[0]=&g[1]=x');
  });

  it('rejects what it cannot encode with a TypeError', () => {
    expect(() => encodePhpPost({ a: 1n } as unknown as PayloadObject)).toThrow(
      new TypeError('Cannot encode a bigint at "a"'),
    );
    const circular: Record<string, unknown> = { x: 1 };
    circular.self = { back: circular };
    expect(() => encodePhpPost({ root: circular } as unknown as PayloadObject)).toThrow(
      'Cannot encode a circular structure at "root" → "self" → "back"',
    );
    expect(() => encodePhpPost(null as unknown as PayloadObject)).toThrow(TypeError);
    expect(() => encodePhpPost(['a'] as unknown as PayloadObject)).toThrow('A PHP-Post payload must be an object');
    expect(() => encodePhpPost('a=b' as unknown as PayloadObject)).toThrow(TypeError);
  });

  it('allows the same object twice when it is not circular', () => {
    const shared = { v: 1 };
    expect(encodePhpPost({ a: shared, b: shared })).toBe('a[v]=1&b[v]=1');
  });
});

describe('encodePhpPost — keys PHP cannot represent', () => {
  it.each([
    ['an empty top-level key', { '': 'x' }, 'PHP drops a pair with an empty name'],
    ['a dot in a top-level key', { 'a.b': 'x' }, 'PHP turns "." and " " in a top-level name into "_"'],
    ['a space in a top-level key', { 'a b': 'x' }, 'PHP turns "." and " " in a top-level name into "_"'],
    ['a [ in a top-level key', { 'a[b': 'x' }, 'PHP reads "[" in a top-level name as a sub-key'],
    ['a NUL in a top-level key', { 'a\0b': 'x' }, 'PHP ends a name at a NUL byte'],
    ['an empty sub-key', { a: { '': 'x' } }, 'PHP reads an empty or single-whitespace sub-key as "append" ([])'],
    ['a space sub-key', { a: { ' ': 'x' } }, 'PHP reads an empty or single-whitespace sub-key as "append" ([])'],
    ['a tab sub-key', { a: { '\t': 'x' } }, 'PHP reads an empty or single-whitespace sub-key as "append" ([])'],
    ['a ] in a sub-key', { a: { 'b]c': 'x' } }, 'PHP ends a sub-key at the first "]"'],
    ['a NUL in a sub-key', { a: { b: { 'c\0': 'x' } } }, 'PHP ends a name at a NUL byte'],
  ])('throws PhpPostEncodingError for %s', (_label, tree, reason) => {
    let error: unknown;
    try {
      encodePhpPost(tree as PayloadObject);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PhpPostEncodingError);
    expect((error as PhpPostEncodingError).reason).toBe(reason);
    expect((error as PhpPostEncodingError).name).toBe('PhpPostEncodingError');
    expect((error as Error).message).toContain(reason);
  });

  it('names the path of the key, shortening long keys', () => {
    const long = `${'k'.repeat(50)}]`;
    expect(() => encodePhpPost({ a: { [long]: 1 } })).toThrow(
      `Cannot encode key "a" → "${'k'.repeat(40)}…" as PHP-Post: PHP ends a sub-key at the first "]"`,
    );
  });

  it('PHP really mangles such keys (why the encoder refuses them)', async () => {
    const [mangled] = await phpParseStr([
      'a.b=1&c%20d=2&%20e=3&f%5Bg=4&h%5Bi%5Dj%5Bk%5D=5&l[m%5Dn]=6&o[%20]=7&p[]=8&=9',
    ]);
    expect(mangled).toStrictEqual({
      a_b: '1',
      c_d: '2',
      e: '3',
      f_g: '4',
      h: { i: '5' },
      l: { m: '6' },
      o: { '0': '7' },
      p: { '0': '8' },
    });
  });
});

describe('encodePhpPost — real PHP rebuilds the tree ($_POST and parse_str)', () => {
  it('rebuilds every real webhook payload of every version', async () => {
    const subjects: WebhookSubject[] = [
      { type: 'transaction', transaction: transactionRecord },
      { type: 'transaction', transaction: { ...transactionRecord, threeDSecure: null, referenceId: null } },
      {
        type: 'transaction',
        transaction: { ...transactionRecord, threeDSecure: { eci: '07', source: 'token', version: null, flow: null } },
      },
      { type: 'subscription', subscription: subscriptionRecord },
      { type: 'payout', payout: payoutRecord },
    ];
    const trees = WEBHOOK_VERSIONS.flatMap((version) =>
      subjects.map((subject) => renderWebhookPayload(version, subject) as PayloadObject),
    );
    await expectPhpRebuilds(trees);
    expect(trees[0]).not.toHaveProperty(['transaction', '3dsecure']);
    expect(await server!.post(encodePhpPost(trees[subjects.length]!))).toMatchObject({
      transaction: {
        '3dsecure': { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
        referenceId: 'order-4711',
      },
    });
    expect(await server!.post(encodePhpPost(trees[subjects.length + 1]!))).toMatchObject({
      transaction: { '3dsecure': '', referenceId: '' },
    });
  });

  it('rebuilds keys and values with [ ] & = + % spaces, dots, non-ASCII text, emoji and NUL values', async () => {
    const nasty = [
      '[',
      ']',
      '[]',
      '][',
      '&',
      '=',
      '+',
      '%',
      '%25',
      '%5B',
      ' ',
      '  ',
      'a b',
      '.',
      'a.b',
      '#?;/',
      'Zürich',
      '中文',
      '😀👍🏽',
      '\n\r\t',
    ];
    const trees: PayloadObject[] = [
      { values: Object.fromEntries(nasty.map((value, index) => [`v${index}`, value])) },
      { values: nasty },
      { nul: 'a\0b' },
      { keys: Object.fromEntries(nasty.filter((key) => !key.includes(']') && key !== ' ').map((key) => [key, key])) },
      { 'top]level': { 'a[b': { '[': { ' x': 'y', 'x ': 'z', '\t\t': 'tab' } } } },
      { 'Zürich€😀': { 中文: 'ok' }, '%41': '%41', '+': '+', '&=': '&=', '-': '-' },
      { '0': 'zero', '1': { '0': 'a', '01': 'b', '-1': 'c' } },
      { flags: { yes: true, no: false, none: null, list: [], object: {} } },
      { numbers: { int: 1990, negative: -42, fraction: 0.1, big: 1e21, tiny: 5e-7 } },
    ];
    await expectPhpRebuilds(trees);
  });

  it('rebuilds arbitrary trees (property, against parse_str and $_POST)', async () => {
    const specials = fc.constantFrom(
      '[',
      ']',
      '&',
      '=',
      '+',
      '%',
      '%2',
      '%5D',
      ' ',
      '.',
      '#',
      '?',
      ';',
      '\\',
      '"',
      "'",
      '\t',
      '\n',
      '\0',
      'é',
      'ü',
      '€',
      '😀',
      '👍🏽',
      '中',
      'a',
      'Z',
      '0',
      '1',
      '-1',
      '__proto__',
      'constructor',
    );
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 6 }),
      fc.array(specials, { maxLength: 4 }).map((parts) => parts.join('')),
    );
    const topKey = text.filter((key) => key !== '' && !/[ .[\0]/.test(key));
    const subKey = text.filter((key) => key !== '' && !/^[ \t\n\v\f\r]$/.test(key) && !/[\]\0]/.test(key));
    const leaf = fc.oneof(
      text,
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
    );
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('value'), { maxLength: 3 }),
        fc
          .uniqueArray(fc.tuple(subKey, tie('value')), { maxLength: 3, selector: ([key]) => key })
          .map((entries) => Object.fromEntries(entries)),
      ),
    }));
    const tree = fc
      .uniqueArray(fc.tuple(topKey, value), { minLength: 1, maxLength: 4, selector: ([key]) => key })
      .map((entries) => Object.fromEntries(entries) as PayloadObject);

    await fc.assert(
      fc.asyncProperty(fc.array(tree, { minLength: 10, maxLength: 10 }), async (trees) => {
        await expectPhpRebuilds(trees);
      }),
      { numRuns: 20 },
    );
  });

  it('refuses exactly the keys PHP would change (property)', async () => {
    const specials = fc.constantFrom('[', ']', ' ', '.', '\t', '\n', '\v', '\f', '\r', '\0', 'a', 'é', '😀', '%', '+');
    const key = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 3 }),
      fc.array(specials, { maxLength: 3 }).map((parts) => parts.join('')),
    );
    const manual = (name: string): string => `${encodeURIComponent(name)}=v`;
    await fc.assert(
      fc.asyncProperty(fc.array(key, { minLength: 20, maxLength: 20 }), async (keys) => {
        const top = keys.map((k) => ({ tree: { [k]: 'v' }, body: manual(k) }));
        const sub = keys.map((k) => ({ tree: { a: { [k]: 'v' } }, body: `a[${encodeURIComponent(k)}]=v` }));
        const cases = [...top, ...sub];
        const parsed = await phpParseStr(cases.map((c) => c.body));
        for (const [index, { tree }] of cases.entries()) {
          const phpKeepsIt = JSON.stringify(parsed[index]) === JSON.stringify(tree);
          let refused = false;
          try {
            encodePhpPost(tree);
          } catch (error) {
            if (!(error instanceof PhpPostEncodingError)) throw error;
            refused = true;
          }
          expect({ tree, refused }).toStrictEqual({ tree, refused: !phpKeepsIt });
        }
      }),
      { numRuns: 10 },
    );
  });
});

describe('encodePayload — the same tree in both content types', () => {
  it('JSON and PHP-Post carry the same keys for every webhook payload', async () => {
    const payload = renderWebhookPayload('2026-08-20', {
      type: 'transaction',
      transaction: { ...transactionRecord, referenceId: null },
    }) as PayloadObject;
    const json = JSON.parse(encodePayload('json', payload).body) as unknown;
    const [php] = await phpParseStr([encodePayload('php-post', payload).body]);
    expect(JSON.stringify(php)).toBe(JSON.stringify(phpView(json)));
  });
});
