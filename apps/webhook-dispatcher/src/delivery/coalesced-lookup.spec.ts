import { describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { coalescedLookup, type AllAddressesLookup } from './coalesced-lookup.js';

describe('coalescedLookup', () => {
  /** A resolver that answers only when the test says so, counting what it was asked. */
  function slowResolver() {
    const asked: string[] = [];
    const pending: Array<() => void> = [];
    const lookup: AllAddressesLookup = (hostname, options, callback) => {
      asked.push(`${options.family} ${hostname}`);
      pending.push(() => callback(null, [{ address: `192.0.2.${asked.length}`, family: 4 }]));
    };
    return { lookup, asked, answerAll: () => pending.splice(0).forEach((answer) => answer()) };
  }

  it('asks once for concurrent lookups of one host and family, and answers every caller', () => {
    const resolver = slowResolver();
    const lookup = coalescedLookup(resolver.lookup);
    const answers: LookupAddress[][] = [];
    for (let i = 0; i < 50; i += 1) lookup('hangs.example', { family: 0, all: true }, (_, a) => answers.push(a));
    lookup('other.example', { family: 0, all: true }, (_, a) => answers.push(a));
    lookup('hangs.example', { family: 6, all: true }, (_, a) => answers.push(a));
    expect(resolver.asked).toEqual(['0 hangs.example', '0 other.example', '6 hangs.example']);
    resolver.answerAll();
    expect(answers).toHaveLength(52);
  });

  it('keeps nothing once answered: the next lookup asks again', () => {
    const resolver = slowResolver();
    const lookup = coalescedLookup(resolver.lookup);
    const seen: string[] = [];
    lookup('shop.example', { family: 0, all: true }, (_, a) => seen.push(a[0].address));
    resolver.answerAll();
    lookup('shop.example', { family: 0, all: true }, (_, a) => seen.push(a[0].address));
    resolver.answerAll();
    expect(resolver.asked).toEqual(['0 shop.example', '0 shop.example']);
    expect(seen).toEqual(['192.0.2.1', '192.0.2.2']);
  });

  it('passes a failure to every waiting caller', () => {
    const errors: unknown[] = [];
    let fail: () => void = () => {};
    const lookup = coalescedLookup((_hostname, _options, callback) => {
      fail = () => callback(Object.assign(new Error('queryA ETIMEOUT hangs.example'), { code: 'ETIMEOUT' }), []);
    });
    for (let i = 0; i < 3; i += 1) lookup('hangs.example', { family: 0, all: true }, (error) => errors.push(error));
    fail();
    expect(errors).toHaveLength(3);
    expect(errors.every((error) => (error as Error).message.includes('ETIMEOUT'))).toBe(true);
  });
});
