import { describe, expect, it } from '@jest/globals';
import {
  CARD_NETWORKS,
  NON_CARD_METHODS,
  PAYMENT_METHODS,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  isCardNetwork,
  isPaymentMethod,
  isTransactionStatus,
  isTransactionType,
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
    expect(PAYMENT_METHODS).toStrictEqual([...CARD_NETWORKS, ...NON_CARD_METHODS]);
  });

  it('tells card networks from every other method, exactly', () => {
    for (const network of CARD_NETWORKS) expect(isCardNetwork(network)).toBe(true);
    for (const method of NON_CARD_METHODS) expect(isCardNetwork(method)).toBe(false);
    for (const junk of ['Visa', 'VISA', ' visa', '', 'toString', '__proto__', null, undefined, 1]) {
      expect(isCardNetwork(junk)).toBe(false);
    }
  });

  it('guards statuses, types and methods exactly', () => {
    expect(isTransactionStatus('partially-refunded')).toBe(true);
    expect(isTransactionStatus('partially_refunded')).toBe(false);
    expect(isTransactionStatus(undefined)).toBe(false);
    expect(isTransactionType('tap-to-pay')).toBe(true);
    expect(isTransactionType('ecommerce')).toBe(false);
    expect(isPaymentMethod('google-pay')).toBe(true);
    expect(isPaymentMethod('googlepay')).toBe(false);
    expect(isPaymentMethod(7)).toBe(false);
  });
});
