import { describe, expect, it } from '@jest/globals';
import { API_VERSIONS, TRANSACTION_RENDERERS, type ApiVersion, type PublicTransaction } from './api-version.js';
import type { PaymentMethod, TransactionStatus, TransactionType } from './payment.constants.js';
import type { Instant, TransactionRecord } from './record.shapes.js';
import type { ThreeDSecure } from './three-d-secure.js';
import { TRANSACTION_FIELDS, transactionFieldsSince, type TransactionField } from './transaction-fields.js';
import { RENDERED_TRANSACTION_FIELDS } from './transaction.renderer.js';
import { WEBHOOK_RENDERERS, WEBHOOK_VERSIONS, type WebhookTransaction } from './webhook-version.js';

/*
 * The types derived from the field table (`TransactionRecord`, `PublicTransaction<V>`, `WebhookTransaction<V>`) are
 * exactly the shapes that were written by hand before (issue #33): checked by the compiler (typecheck), pinned here.
 */

/** `true` only when A and B are the same type (optional and readonly keys included). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

type FirstRecord = {
  uuid: string;
  referenceId: string | null;
  status: TransactionStatus;
  psp: string;
  type: TransactionType;
  paymentMethod: PaymentMethod;
  amount: number;
  currency: string;
  integrationId: string | null;
  createdAt: Instant;
  updatedAt: Instant;
};
type FirstObject = {
  uuid: string;
  referenceId: string | null;
  status: TransactionStatus;
  psp: string;
  type: TransactionType;
  paymentMethod: PaymentMethod;
  amount: number;
  currency: string;
  integrationId: string | null;
  createdAt: string;
  updatedAt: string;
};
type WithThreeDSecure = FirstObject & { '3dsecure': ThreeDSecure | null };

/** An object type written out flat. */
type Flat<T> = { [K in keyof T]: T[K] };

const RECORD: Equal<TransactionRecord, Flat<FirstRecord & { threeDSecure?: ThreeDSecure | null }>> = true;
const API_1_0: Equal<PublicTransaction<'1.0'>, FirstObject> = true;
const API_1_9: Equal<PublicTransaction<'1.9'>, FirstObject> = true;
const API_1_10: Equal<PublicTransaction<'1.10'>, FirstObject> = true;
const API_1_16: Equal<PublicTransaction<'1.16'>, FirstObject> = true;
const API_1_17: Equal<PublicTransaction<'1.17'>, Flat<WithThreeDSecure>> = true;
const API_ANY: Equal<PublicTransaction, PublicTransaction<Exclude<ApiVersion, '1.17'>> | PublicTransaction<'1.17'>> =
  true;
const WEBHOOK_OLD: Equal<WebhookTransaction<'2025-01-15'>, PublicTransaction<'1.16'>> = true;
const WEBHOOK_NEW: Equal<WebhookTransaction<'2026-08-20'>, PublicTransaction<'1.17'>> = true;

describe('the types derived from the field table', () => {
  it('are the shapes written by hand before (the compiler checks; this names the checks)', () => {
    expect([RECORD, API_1_0, API_1_9, API_1_10, API_1_16, API_1_17, API_ANY, WEBHOOK_OLD, WEBHOOK_NEW]).not.toContain(
      false,
    );
  });
});

describe("the version registries derived from the fields' since", () => {
  const field = (key: string, api: string): TransactionField => ({
    key,
    record: key,
    column: key,
    type: 'text',
    nullable: false,
    since: { api, webhook: api },
    schema: {},
    openApi: {},
  });

  it('order versions by their place in the list, not as strings (1.10 comes after 1.9)', () => {
    const versions = ['1.0', '1.2', '1.9', '1.10', '1.11'];
    const fields = [field('a', '1.0'), field('b', '1.10'), field('c', '1.2')];
    const keys = (version: string) => transactionFieldsSince(fields, 'api', versions, version).map((one) => one.key);
    expect(keys('1.0')).toStrictEqual(['a']);
    expect(keys('1.2')).toStrictEqual(['a', 'c']);
    expect(keys('1.9')).toStrictEqual(['a', 'c']);
    expect(keys('1.10')).toStrictEqual(['a', 'b', 'c']);
    expect(keys('1.11')).toStrictEqual(['a', 'b', 'c']);
  });

  it("refuse a version, or a field's since, that is not in the list", () => {
    expect(() => transactionFieldsSince([field('a', '1.0')], 'api', ['1.0'], '1.1')).toThrow(RangeError);
    expect(() => transactionFieldsSince([field('a', '1.1')], 'api', ['1.0'], '1.0')).toThrow(
      'The since of a: "1.1" is not one of the api versions',
    );
  });

  it('give the versions with the same fields one renderer, shared by the read API and webhooks', () => {
    const renderers = new Set(Object.values(TRANSACTION_RENDERERS));
    const fieldLists = new Set(
      API_VERSIONS.map((version) =>
        TRANSACTION_FIELDS.filter((one) => API_VERSIONS.indexOf(one.since.api) <= API_VERSIONS.indexOf(version))
          .map((one) => one.key)
          .join(),
      ),
    );
    expect(renderers.size).toBe(fieldLists.size);
    for (const version of WEBHOOK_VERSIONS) {
      const render = WEBHOOK_RENDERERS[version].transaction;
      expect(renderers.has(render)).toBe(true);
      expect(RENDERED_TRANSACTION_FIELDS.get(render)).toBeDefined();
    }
  });
});
