/**
 * The fields of the transaction, defined once (issue #33): for each, its key in the public object (read API,
 * webhooks), its key in the record (`TransactionRecord`, an event's `data`, transaction-api's row), its column of
 * `payments.transaction`, the type of its value, whether it may be null, the first read-API and webhook payload
 * version whose transaction object has it, its JSON Schema (webhook payloads) and its OpenAPI property (read API,
 * `@nestjs/swagger` ApiProperty options; the app adds the class of a nested object).
 *
 * Derived from it: which versions have which fields and the renderers of each (`api-version.ts`,
 * `webhook-version.ts`, `transaction.renderer.ts`), the types `TransactionRecord` (`record.shapes.ts`),
 * `PublicTransaction<V>` and `WebhookTransaction<V>` (with the helpers below), the payload schemas
 * (`webhook-schema.ts`), the record schema of events (`libs/messaging`), transaction-api's SQL (`transaction.row.ts`:
 * the columns it reads, writes and puts in events) and its OpenAPI classes (`transaction.doc.ts`).
 *
 * The order is the key order of every object, record, event and column list. A new field is appended, with the new
 * versions as its `since` (docs/guides.md); an existing field is never edited — old versions must keep their shape.
 */
import {
  AMOUNT,
  CURRENCY,
  INSTANT,
  NULLABLE_UUID,
  REFERENCE_ID,
  THREE_D_SECURE,
  UUID,
  type JsonSchema,
} from './json-schema.parts.js';
import {
  CARD_NETWORKS,
  KNOWN_PAYMENT_METHODS,
  PAYMENT_METHOD_MAX_LENGTH,
  PAYMENT_METHOD_PATTERN,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  type PaymentMethod,
} from './payment.constants.js';
import type { ThreeDSecure } from './three-d-secure.js';

/**
 * What a field's value is. Each consumer spells a type its own way (libs/messaging's record schema, the SQL of an
 * event), so a new field of a known type needs nothing there.
 */
export type TransactionFieldType =
  | 'uuid'
  | 'text'
  | 'enum'
  /** A lowercase slug of the payment method's pattern. */
  | 'slug'
  | 'amount'
  | 'currency'
  | 'instant'
  | 'threeDSecure';

/** One field of the transaction. */
export interface TransactionField {
  /** The key in the public transaction object. */
  readonly key: string;
  /** The key in the record (`TransactionRecord`, an event's `data`, transaction-api's row). */
  readonly record: string;
  /** The column of `payments.transaction`. */
  readonly column: string;
  readonly type: TransactionFieldType;
  /** The values of an `enum` field. */
  readonly values?: readonly string[];
  /** May be null (in the record and the public object). */
  readonly nullable: boolean;
  /** The first read-API version and webhook payload version whose transaction object has the key. */
  readonly since: { readonly api: string; readonly webhook: string };
  /** Its JSON Schema in webhook payloads. */
  readonly schema: JsonSchema;
  /** Its OpenAPI property in the read API (ApiProperty options). */
  readonly openApi: { readonly [option: string]: unknown };
}

/** OpenAPI: the payment method, an open list of slugs (also the platform API's input). */
export const PAYMENT_METHOD_OPEN_API = {
  type: 'string',
  pattern: PAYMENT_METHOD_PATTERN.source,
  maxLength: PAYMENT_METHOD_MAX_LENGTH,
  example: 'visa',
  description:
    `A lowercase slug of at most ${PAYMENT_METHOD_MAX_LENGTH} characters. The list is open: any such slug is ` +
    `recorded (e.g. \`bank-transfer\`, \`klarna\`). Known methods: ${KNOWN_PAYMENT_METHODS.join(', ')}. Only the ` +
    `card networks (${CARD_NETWORKS.join(', ')}) can carry a \`3dsecure\` object; every other method is non-card.`,
} as const;

const FIRST = { api: '1.0', webhook: '2025-01-15' } as const;
const THREE_D_SECURE_SINCE = { api: '1.17', webhook: '2026-08-20' } as const;

/** The fields, in the order of the public object (see the module comment). */
export const TRANSACTION_FIELDS = [
  {
    key: 'uuid',
    record: 'uuid',
    column: 'uuid',
    type: 'uuid',
    nullable: false,
    since: FIRST,
    schema: UUID,
    openApi: { type: 'string', format: 'uuid' },
  },
  {
    key: 'referenceId',
    record: 'referenceId',
    column: 'reference_id',
    type: 'text',
    nullable: true,
    since: FIRST,
    schema: REFERENCE_ID,
    openApi: { nullable: true, type: 'string' },
  },
  {
    key: 'status',
    record: 'status',
    column: 'status',
    type: 'enum',
    values: TRANSACTION_STATUSES,
    nullable: false,
    since: FIRST,
    schema: { type: 'string', enum: TRANSACTION_STATUSES },
    openApi: { type: 'string', enum: TRANSACTION_STATUSES },
  },
  {
    key: 'psp',
    record: 'psp',
    column: 'psp',
    type: 'text',
    nullable: false,
    since: FIRST,
    schema: { type: 'string', description: 'The payment service provider that processed the payment.' },
    openApi: { type: 'string', example: 'Payrexx Direct' },
  },
  {
    key: 'type',
    record: 'type',
    column: 'type',
    type: 'enum',
    values: TRANSACTION_TYPES,
    nullable: false,
    since: FIRST,
    schema: { type: 'string', enum: TRANSACTION_TYPES },
    openApi: { type: 'string', enum: TRANSACTION_TYPES },
  },
  {
    key: 'paymentMethod',
    record: 'paymentMethod',
    column: 'payment_method',
    type: 'slug',
    nullable: false,
    since: FIRST,
    schema: {
      type: 'string',
      pattern: PAYMENT_METHOD_PATTERN.source,
      maxLength: PAYMENT_METHOD_MAX_LENGTH,
      description:
        `A lowercase slug; the list is open (e.g. \`twint\`, \`bank-transfer\`). Card networks: ` +
        `${CARD_NETWORKS.join(', ')}.`,
    },
    openApi: PAYMENT_METHOD_OPEN_API,
  },
  {
    key: 'amount',
    record: 'amount',
    column: 'amount',
    type: 'amount',
    nullable: false,
    since: FIRST,
    schema: AMOUNT,
    openApi: { type: 'integer', description: 'Minor units.', example: 1990 },
  },
  {
    key: 'currency',
    record: 'currency',
    column: 'currency',
    type: 'currency',
    nullable: false,
    since: FIRST,
    schema: CURRENCY,
    openApi: { type: 'string', example: 'CHF' },
  },
  {
    key: 'integrationId',
    record: 'integrationId',
    column: 'integration_id',
    type: 'uuid',
    nullable: true,
    since: FIRST,
    schema: { ...NULLABLE_UUID, description: 'The integration the payment came through; null for none.' },
    openApi: { nullable: true, type: 'string', format: 'uuid' },
  },
  {
    key: 'createdAt',
    record: 'createdAt',
    column: 'created_at',
    type: 'instant',
    nullable: false,
    since: FIRST,
    schema: INSTANT,
    openApi: { type: 'string', format: 'date-time', example: '2026-11-22T10:00:00.000Z' },
  },
  {
    key: 'updatedAt',
    record: 'updatedAt',
    column: 'updated_at',
    type: 'instant',
    nullable: false,
    since: FIRST,
    schema: { ...INSTANT, description: 'The time of the latest change (ISO 8601 in UTC with milliseconds).' },
    openApi: { type: 'string', format: 'date-time' },
  },
  {
    key: '3dsecure',
    record: 'threeDSecure',
    column: 'three_d_secure',
    type: 'threeDSecure',
    nullable: true,
    since: THREE_D_SECURE_SINCE,
    schema: THREE_D_SECURE,
    openApi: {
      nullable: true,
      description:
        `The 3-D Secure result (always present from ${THREE_D_SECURE_SINCE.api}): null unless an e-commerce ` +
        'card payment with a resolvable authentication. Exactly the keys eci, source, version, flow.',
    },
  },
] as const satisfies readonly TransactionField[];

/** One field of the table, as its literal type. */
export type TransactionFieldRow = (typeof TRANSACTION_FIELDS)[number];

/** A field's public key, e.g. `3dsecure`. */
export type TransactionFieldKey = TransactionFieldRow['key'];

/** The field with this public key. */
export function transactionField<K extends TransactionFieldKey>(key: K): Extract<TransactionFieldRow, { key: K }> {
  return TRANSACTION_FIELDS.find((field) => field.key === key) as Extract<TransactionFieldRow, { key: K }>;
}

/** The fields of the first version of the transaction object (read API 1.0, webhook version 2025-01-15). */
export const FIRST_TRANSACTION_FIELDS: readonly TransactionField[] = TRANSACTION_FIELDS.filter(
  (field) => field.since.api === FIRST.api,
);

/** A field of the first version; the others came later (records and events written before them lack them). */
export type FirstTransactionFieldRow = Extract<
  TransactionFieldRow,
  { readonly since: { readonly api: typeof FIRST.api } }
>;

/** A field's record key, e.g. `threeDSecure`. */
export type TransactionFieldRecordKey = TransactionFieldRow['record'];

/**
 * The versions of each line a field is dated by (`since`): `api` (read API) or `webhook` (payload versions).
 */
export type TransactionVersionLine = keyof TransactionField['since'];

/**
 * The fields of version `version` of a list of versions written oldest first (`API_VERSIONS`, `WEBHOOK_VERSIONS`):
 * those whose `since[line]` is at or before it in the list (by place in the list: 1.10 comes after 1.9), in the
 * table's order.
 *
 * @throws {RangeError} when `version` or a field's `since[line]` is not in `versions`.
 */
export function transactionFieldsSince<F extends TransactionField>(
  fields: readonly F[],
  line: TransactionVersionLine,
  versions: readonly string[],
  version: string,
): readonly F[] {
  const place = (one: string, what: string): number => {
    const index = versions.indexOf(one);
    if (index < 0) throw new RangeError(`${what} ${JSON.stringify(one)} is not one of the ${line} versions`);
    return index;
  };
  const at = place(version, 'Version');
  return fields.filter((field) => place(field.since[line], `The since of ${field.key}:`) <= at);
}

/**
 * What a value of each field type is in TypeScript, with `TInstant` for an `instant` (loose in the record: a `Date`,
 * a string, epoch milliseconds; an ISO string in the public object). A new field type fails to compile until it has
 * its entry here; an `enum` field's value is one of its `values`.
 */
export type TransactionValueTypes<TInstant> = EveryFieldType<{
  uuid: string;
  text: string;
  enum: string;
  slug: PaymentMethod;
  amount: number;
  currency: string;
  instant: TInstant;
  threeDSecure: ThreeDSecure;
}>;

/** Holds a map to have an entry for every field type. */
type EveryFieldType<T extends { [K in TransactionFieldType]: unknown }> = T;

/** The type of a field's value: one of its enum `values` or its type's value, with `null` when nullable. */
export type TransactionFieldValue<F extends TransactionField, TInstant> = F['nullable'] extends true
  ? NonNullFieldValue<F, TInstant> | null
  : NonNullFieldValue<F, TInstant>;

type NonNullFieldValue<F extends TransactionField, TInstant> = F extends { readonly values: readonly (infer V)[] }
  ? V
  : TransactionValueTypes<TInstant>[F['type']];

/** An object type written out flat (what an editor shows of an intersection or a mapped type). */
export type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The versions of `Versions` (written oldest first) up to `V`, `V` included. */
export type VersionsUpTo<Versions extends readonly string[], V extends string> = Versions extends readonly [
  infer First extends string,
  ...infer Rest extends string[],
]
  ? First extends V
    ? First
    : First | VersionsUpTo<Rest, V>
  : never;

/** The fields of version `V` of `Versions`: those whose `since[Line]` is at or before it. */
export type TransactionFieldsSince<
  Line extends TransactionVersionLine,
  Versions extends readonly string[],
  V extends string,
> = Extract<TransactionFieldRow, { readonly since: { readonly [L in Line]: VersionsUpTo<Versions, V> } }>;

/** The public transaction object of exactly the fields `F` (a union of rows). */
export type TransactionObjectOf<F extends TransactionFieldRow> = Flat<{
  -readonly [Field in F as Field['key']]: TransactionFieldValue<Field, string>;
}>;
