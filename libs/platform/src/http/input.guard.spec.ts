import { describe, expect, it } from '@jest/globals';
import { illFormedField, NUL_MESSAGE, parseJsonBody, PROTOTYPE_MESSAGE, UNICODE_MESSAGE } from './input.guard.js';

describe('the input guard', () => {
  it('names the first string, key or list item with a NUL or a lone surrogate, at any depth', () => {
    expect(illFormedField({ a: 'fine', b: { c: ['ok', 'x\0y'] } }, '')).toEqual({
      field: 'b.c.1',
      message: NUL_MESSAGE,
    });
    expect(illFormedField({ name: '\ud800' }, '')).toEqual({ field: 'name', message: UNICODE_MESSAGE });
    expect(illFormedField({ ['k\udc00']: 1 }, '')).toEqual({ field: 'k\udc00', message: UNICODE_MESSAGE });
    expect(illFormedField('a\0', 'referenceId')).toEqual({ field: 'referenceId', message: NUL_MESSAGE });
  });

  it('lets well-formed text through: emoji, right-to-left marks, control characters other than NUL', () => {
    expect(illFormedField({ a: '😀\u202e\u200f', b: '\u0001\t', c: [1, true, null], d: '' }, '')).toBeUndefined();
  });

  it('parses JSON bodies strictly: UTF-8, no prototype keys, each refusal naming what it refuses', () => {
    expect(parseJsonBody(Buffer.from('{"a":[1,"b"]}'))).toEqual({ value: { a: [1, 'b'] } });
    expect(parseJsonBody(Buffer.from('\ufeff{"a":1}'))).toEqual({ value: { a: 1 } });
    const refusal = (body: Buffer) => {
      const parsed = parseJsonBody(body);
      return 'problem' in parsed ? parsed.problem.problem : undefined;
    };
    expect(refusal(Buffer.from('{"a":"\\u0000"}'))?.errors).toEqual([{ field: 'a', message: NUL_MESSAGE }]);
    expect(refusal(Buffer.from('{"email":"\\ud800"}'))?.errors).toEqual([{ field: 'email', message: UNICODE_MESSAGE }]);
    expect(refusal(Buffer.from('{"x":{"__proto__":{"p":1}}}'))?.errors).toEqual([
      { field: 'x.__proto__', message: PROTOTYPE_MESSAGE },
    ]);
    expect(refusal(Buffer.from('{"constructor":{"prototype":{"p":1}}}'))?.errors).toEqual([
      { field: 'constructor', message: PROTOTYPE_MESSAGE },
    ]);
    expect(refusal(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))?.detail).toBe(
      'The request body is not valid UTF-8.',
    );
    expect(refusal(Buffer.from('{"a":'))?.detail).toBe('The request body is not valid JSON.');
    // A plain "constructor" field is just a name.
    expect(parseJsonBody(Buffer.from('{"constructor":"x"}'))).toEqual({ value: { constructor: 'x' } });
  });
});
