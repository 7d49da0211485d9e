import { describe, expect, it } from '@jest/globals';
import { payoutRecord, subscriptionRecord, transactionRecord, webhookRecord } from '../test/fixtures.js';
import { deliverySubjectOf } from './webhook-delivery.rules.js';

describe('deliverySubjectOf', () => {
  it('records psp, type, uuid and referenceId of a transaction', () => {
    expect(deliverySubjectOf({ type: 'transaction', transaction: transactionRecord })).toStrictEqual({
      psp: transactionRecord.psp,
      type: transactionRecord.type,
      uuid: transactionRecord.uuid,
      referenceId: transactionRecord.referenceId,
    });
    expect(transactionRecord.referenceId).toEqual(expect.any(String));
  });

  it('records the id of a subscription or payout as uuid, and the referenceId a subscription has (a payout has none)', () => {
    expect(deliverySubjectOf({ type: 'subscription', subscription: subscriptionRecord })).toStrictEqual({
      uuid: subscriptionRecord.id,
      referenceId: subscriptionRecord.referenceId,
    });
    expect(deliverySubjectOf({ type: 'payout', payout: payoutRecord })).toStrictEqual({
      uuid: payoutRecord.id,
      referenceId: null,
    });
  });

  it('records the id of the webhook an operational event is about as uuid, without a reference', () => {
    expect(deliverySubjectOf({ type: 'webhook', webhook: webhookRecord })).toStrictEqual({
      uuid: webhookRecord.id,
      referenceId: null,
    });
  });
});
