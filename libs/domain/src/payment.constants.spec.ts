import { describe, expect, it } from '@jest/globals';
import {
  CARD_NETWORKS,
  KNOWN_PAYMENT_METHODS,
  NON_CARD_METHODS,
  PAYMENT_METHOD_MAX_LENGTH,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  isCardNetwork,
  isPaymentMethod,
} from './payment.constants.js';

describe('payment constants', () => {
  it('lists the twelve statuses of the contract', () => {
    expect(TRANSACTION_STATUSES).toStrictEqual([
      'waiting',
      'confirmed',
      'authorized',
      'reserved',
      'uncaptured',
      'refund_pending',
      'refunded',
      'partially-refunded',
      'chargeback',
      'cancelled',
      'declined',
      'error',
    ]);
  });

  it('lists the transaction types and payment methods of the contract', () => {
    expect(TRANSACTION_TYPES).toStrictEqual(['e-commerce', 'pos', 'tap-to-pay']);
    expect(CARD_NETWORKS).toStrictEqual([
      'visa',
      'mastercard',
      'amex',
      'discover',
      'diners',
      'jcb',
      'unionpay',
      'maestro',
      'cartes-bancaires',
    ]);
    expect(NON_CARD_METHODS).toStrictEqual([
      'twint',
      'invoice',
      'crypto',
      'apple-pay',
      'google-pay',
      'post-finance',
      'paypal',
    ]);
    expect(KNOWN_PAYMENT_METHODS).toStrictEqual([...CARD_NETWORKS, ...NON_CARD_METHODS]);
  });

  it('tells card networks from every other method, exactly', () => {
    for (const network of CARD_NETWORKS) expect(isCardNetwork(network)).toBe(true);
    for (const method of NON_CARD_METHODS) expect(isCardNetwork(method)).toBe(false);
    for (const junk of ['Visa', 'VISA', ' visa', '', 'toString', '__proto__', null, undefined, 1]) {
      expect(isCardNetwork(junk)).toBe(false);
    }
  });
});

describe('payment methods: an open list of lowercase slugs', () => {
  it('accepts every known method', () => {
    for (const method of KNOWN_PAYMENT_METHODS) expect([method, isPaymentMethod(method)]).toEqual([method, true]);
  });

  it.each(['bank-transfer', 'klarna', 'googlepay', 'sepa-direct-debit', 'p24', '3x-oney', 'a', '0', 'a-b-c-d'])(
    'accepts the unlisted slug %p, and it is not a card network',
    (method) => {
      expect(isPaymentMethod(method)).toBe(true);
      expect(isCardNetwork(method)).toBe(false);
    },
  );

  it('accepts up to 40 characters, not 41', () => {
    expect(PAYMENT_METHOD_MAX_LENGTH).toBe(40);
    expect(isPaymentMethod('a'.repeat(40))).toBe(true);
    expect(isPaymentMethod('a'.repeat(41))).toBe(false);
    expect(isPaymentMethod(`${'ab-'.repeat(12)}abcd`)).toBe(true); // 40 with hyphens
    expect(isPaymentMethod(`${'ab-'.repeat(12)}abcde`)).toBe(false); // 41 with hyphens
  });

  it.each([
    ['empty', ''],
    ['upper case', 'Visa'],
    ['all upper case', 'VISA'],
    ['a leading hyphen', '-visa'],
    ['a trailing hyphen', 'visa-'],
    ['a double hyphen', 'bank--transfer'],
    ['only a hyphen', '-'],
    ['an underscore', 'bank_transfer'],
    ['a space', 'bank transfer'],
    ['surrounding space', ' visa'],
    ['a trailing newline', 'visa\n'],
    ['a dot', 'apple.pay'],
    ['an accented letter', 'carté'],
    ['a non-Latin script', 'карта'],
    ['a full-width letter', 'ｖｉｓａ'],
    ['an emoji', 'pay-💳'],
    ['a NUL', 'visa\u0000'],
  ])('refuses a slug with %s', (_, method) => {
    expect(isPaymentMethod(method)).toBe(false);
  });

  it.each([null, undefined, 7, ['visa'], { method: 'visa' }, true])('refuses the non-string %p', (value) => {
    expect(isPaymentMethod(value)).toBe(false);
  });
});
