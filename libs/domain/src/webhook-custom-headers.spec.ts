import { describe, expect, it } from '@jest/globals';
import {
  customHeaderNameProblem,
  customHeaderValueProblem,
  duplicateHeaderIndex,
  headerValueContext,
  isReservedHeaderName,
  maskedHeaderValue,
} from './webhook-custom-headers.js';

describe('custom header rules (#domain)', () => {
  it('reserves the contract’s names and prefixes in any letter case, and nothing that merely contains them', () => {
    for (const name of ['host', 'HOST', 'Content-Type', 'content-length', 'Transfer-Encoding', 'connection']) {
      expect(isReservedHeaderName(name)).toBe(true);
    }
    for (const name of ['User-Agent', 'TRACEPARENT', 'x-webhook-signature', 'webhook-id', 'Webhook-Anything']) {
      expect(isReservedHeaderName(name)).toBe(true);
    }
    for (const name of ['Authorization', 'X-Api-Key', 'X-Host', 'x-webhook-id', 'my-webhook-token', 'Hosts']) {
      expect(isReservedHeaderName(name)).toBe(false);
    }
  });

  it('takes RFC 7230 tokens of 1–100 characters as names, naming the header when refusing', () => {
    expect(customHeaderNameProblem("A-z_0.9!#$%&'*+^`|~")).toBeNull();
    expect(customHeaderNameProblem('X Y')).toContain('"X Y" is not a header name');
    expect(customHeaderNameProblem('X\r\nY')).toContain('"X??Y"');
    expect(customHeaderNameProblem('')).toContain('1 to 100');
    expect(customHeaderNameProblem('x'.repeat(101))).toContain('1 to 100');
    expect(customHeaderNameProblem('Host')).toContain('"Host" is reserved');
  });

  it('takes 1–1,024 printable ASCII characters as a value and never repeats it', () => {
    expect(customHeaderValueProblem('Bearer a.b-c_d=e; f="g"')).toBeNull();
    expect(customHeaderValueProblem('x'.repeat(1024))).toBeNull();
    for (const value of ['', 'x'.repeat(1025), 'a\r\nb', 'a\nb', 'a\tb', 'a\u0000', 'a\u007f', 'é', ' a', 'a ']) {
      const problem = customHeaderValueProblem(value);
      expect(problem).not.toBeNull();
      if (value.trim().length > 1) expect(problem).not.toContain(value.trim());
    }
  });

  it('finds a name given twice in any letter case', () => {
    expect(duplicateHeaderIndex(['A', 'B'])).toBe(-1);
    expect(duplicateHeaderIndex(['X-Token', 'B', 'x-token'])).toBe(2);
  });

  it('shows the last four characters, none of a value of four or fewer', () => {
    expect(maskedHeaderValue('Bearer abc123')).toBe('c123');
    expect(maskedHeaderValue('abcd')).toBe('');
    expect(maskedHeaderValue('abcde')).toBe('bcde');
  });

  it('binds a value to its webhook and lowercase name', () => {
    expect(headerValueContext('w1', 'X-Token')).toBe(headerValueContext('w1', 'x-token'));
    expect(headerValueContext('w1', 'X-Token')).not.toBe(headerValueContext('w2', 'X-Token'));
  });
});
