import { describe, expect, it } from '@jest/globals';
import { nestsDeeperThan } from './json-depth.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('nestsDeeperThan', () => {
  it('counts objects and arrays alike', () => {
    expect(nestsDeeperThan(bytes('{"a":[{"b":1}]}'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":[{"b":[1]}]}'), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('[[[]]]'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('[[[[]]]]'), 3)).toBe(true);
  });

  it('measures depth, not the number of brackets', () => {
    expect(nestsDeeperThan(bytes(JSON.stringify(Array.from({ length: 1000 }, () => ({ a: [1] })))), 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(bytes(JSON.stringify({ text: '[[[[{{{{' })), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(JSON.stringify({ text: 'say "[[[[" \\ ok' })), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(JSON.stringify({ text: '\\', next: [[1]] })), 2)).toBe(true);
  });

  it('finds thousands of levels in a small body', () => {
    expect(nestsDeeperThan(bytes('{"x":' + '['.repeat(5_000) + ']'.repeat(5_000) + '}'))).toBe(true);
    expect(nestsDeeperThan(bytes('{"x":' + '['.repeat(31) + ']'.repeat(31) + '}'))).toBe(false);
  });
});
