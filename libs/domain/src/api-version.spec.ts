import { describe, expect, it } from '@jest/globals';
import {
  API_VERSIONS,
  LATEST_API_VERSION,
  TRANSACTION_RENDERERS,
  isApiVersion,
  renderTransaction,
} from './api-version.js';
import { transactionRecord } from '../test/fixtures.js';

const BASE_KEYS = [
  'uuid',
  'referenceId',
  'status',
  'psp',
  'type',
  'paymentMethod',
  'amount',
  'currency',
  'integrationId',
  'createdAt',
  'updatedAt',
];

describe('API versions', () => {
  it('serves 1.0 … 1.17, latest 1.17', () => {
    expect(API_VERSIONS).toHaveLength(18);
    expect(API_VERSIONS).toStrictEqual(Array.from({ length: 18 }, (_, minor) => `1.${minor}`));
    expect(LATEST_API_VERSION).toBe('1.17');
    expect(API_VERSIONS.at(-1)).toBe(LATEST_API_VERSION);
  });

  it('has a renderer for exactly the served versions', () => {
    expect(Object.keys(TRANSACTION_RENDERERS)).toStrictEqual([...API_VERSIONS]);
  });

  it.each([['1.0'], ['1.9'], ['1.10'], ['1.17']])('accepts %p', (version) => {
    expect(isApiVersion(version)).toBe(true);
  });

  it.each([['1.18'], ['2.0'], ['1'], ['v1.17'], ['1.017'], ['01.17'], ['1.17 '], [''], ['toString'], [null], [1.17]])(
    'rejects %p',
    (version) => {
      expect(isApiVersion(version)).toBe(false);
    },
  );
});

describe('renderTransaction', () => {
  it('renders the contract object in API 1.17, keys in contract order', () => {
    const rendered = renderTransaction('1.17', transactionRecord);
    expect(rendered).toStrictEqual({
      uuid: '0b8a6a3e-3f53-4d7e-9c1f-0d1f1c6a9e21',
      referenceId: 'order-4711',
      status: 'confirmed',
      psp: 'Payrexx Direct',
      type: 'e-commerce',
      paymentMethod: 'visa',
      amount: 1990,
      currency: 'CHF',
      integrationId: '6f1c1d34-0a3b-4bcb-9c43-2d7e0b8f4c10',
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
      '3dsecure': { eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' },
    });
    expect(Object.keys(rendered)).toStrictEqual([...BASE_KEYS, '3dsecure']);
  });

  it('always has the 3dsecure key in 1.17, null when there is none or the record predates the field', () => {
    const none = renderTransaction('1.17', { ...transactionRecord, threeDSecure: null });
    expect(Object.keys(none)).toContain('3dsecure');
    expect(none['3dsecure']).toBeNull();
    expect(JSON.stringify(none)).toContain('"3dsecure":null');

    const { threeDSecure: _dropped, ...legacy } = transactionRecord;
    expect(renderTransaction('1.17', legacy)['3dsecure']).toBeNull();
  });

  it('copies only the four public keys of a stored 3dsecure object', () => {
    const stored = { eci: '07', source: 'token', version: null, flow: null, cavv: 'SECRET-CAVV' } as const;
    const rendered = renderTransaction('1.17', { ...transactionRecord, threeDSecure: stored });
    expect(rendered['3dsecure']).toStrictEqual({ eci: '07', source: 'token', version: null, flow: null });
    expect(JSON.stringify(rendered)).not.toContain('SECRET-CAVV');
  });

  it('renders 1.0 … 1.16 identically, without a 3dsecure key, and otherwise like 1.17', () => {
    const latest = renderTransaction('1.17', transactionRecord);
    const { '3dsecure': _threeDSecure, ...withoutKey } = latest;
    for (const version of API_VERSIONS.slice(0, -1)) {
      const rendered = renderTransaction(version, transactionRecord);
      expect(rendered).toStrictEqual(withoutKey);
      expect(Object.keys(rendered)).toStrictEqual(BASE_KEYS);
      expect(JSON.stringify(rendered)).not.toContain('3dsecure');
    }
  });

  it('renders nullable fields as null, never omitted', () => {
    const rendered = renderTransaction('1.0', { ...transactionRecord, referenceId: null, integrationId: null });
    expect(rendered.referenceId).toBeNull();
    expect(rendered.integrationId).toBeNull();
    expect(Object.keys(rendered)).toStrictEqual(BASE_KEYS);
  });

  it('renders dates as UTC ISO 8601 with milliseconds from a Date, a string or epoch milliseconds', () => {
    const rendered = renderTransaction('1.5', {
      ...transactionRecord,
      createdAt: '2026-03-01T00:00:00.5+02:00',
      updatedAt: Date.UTC(2026, 2, 1, 9, 30, 15, 7),
    });
    expect(rendered.createdAt).toBe('2026-02-28T22:00:00.500Z');
    expect(rendered.updatedAt).toBe('2026-03-01T09:30:15.007Z');
  });

  it('rejects an invalid date naming the field', () => {
    expect(() => renderTransaction('1.17', { ...transactionRecord, updatedAt: 'yesterday' })).toThrow(
      new RangeError('updatedAt is not a valid date'),
    );
    expect(() => renderTransaction('1.17', { ...transactionRecord, createdAt: new Date(Number.NaN) })).toThrow(
      'createdAt is not a valid date',
    );
  });

  it('rejects an unknown version', () => {
    expect(() => renderTransaction('1.18' as '1.17', transactionRecord)).toThrow(RangeError);
    expect(() => renderTransaction('toString' as '1.17', transactionRecord)).toThrow('Unknown API version');
  });
});
