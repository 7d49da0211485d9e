import { describe, expect, it } from '@jest/globals';
import { payoutRecord, subscriptionRecord, transactionRecord } from '../test/fixtures.js';
import { deliverySubjectOf } from './webhook-delivery.rules.js';

describe('deliverySubjectOf', () => {
  it('records psp, type and uuid of a transaction', () => {
    expect(deliverySubjectOf({ type: 'transaction', transaction: transactionRecord })).toStrictEqual({
      psp: transactionRecord.psp,
      type: transactionRecord.type,
      uuid: transactionRecord.uuid,
    });
  });

  it('records only the id of a subscription or payout, as uuid', () => {
    expect(deliverySubjectOf({ type: 'subscription', subscription: subscriptionRecord })).toStrictEqual({
      uuid: subscriptionRecord.id,
    });
    expect(deliverySubjectOf({ type: 'payout', payout: payoutRecord })).toStrictEqual({ uuid: payoutRecord.id });
  });
});
