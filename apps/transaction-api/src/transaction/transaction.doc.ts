import { ApiProperty } from '@nestjs/swagger';
import {
  API_TRANSACTION_FIELDS,
  API_VERSIONS,
  THREE_D_SECURE_SINCE_API_VERSION,
  type TransactionField,
  type TransactionFieldType,
} from '#domain';

/*
 * OpenAPI only: the read API's transaction objects. Their properties are the fields of #domain's table
 * (transaction-fields.ts) of each API version (`API_TRANSACTION_FIELDS`), with each field's `openApi` options, in the
 * table's order.
 */

export class ThreeDSecureDoc {
  @ApiProperty({
    description: 'Electronic Commerce Indicator, two digits (Visa 05/06/07, Mastercard 02/01/00).',
    example: '05',
  })
  eci!: string;
  @ApiProperty({ enum: ['3ds', 'token'] })
  source!: string;
  @ApiProperty({
    nullable: true,
    type: 'string',
    description: 'Dotted three-part version; null for `token` or when not numeric.',
    example: '2.2.0',
  })
  version!: string | null;
  @ApiProperty({
    nullable: true,
    type: 'string',
    enum: ['frictionless', 'challenge'],
    description: 'null for `token` or when unknown.',
  })
  flow!: string | null;
}

/** The class of a field whose value is an object. */
const NESTED: { readonly [T in TransactionFieldType]?: new () => object } = { threeDSecure: ThreeDSecureDoc };

/** Gives `target` one property per field (after those it inherits). */
function documentFields(target: new () => object, fields: readonly TransactionField[]): void {
  for (const field of fields) {
    const nested = NESTED[field.type];
    const options = nested === undefined ? field.openApi : { ...field.openApi, name: field.key, type: nested };
    ApiProperty(options)(target.prototype, field.key);
  }
}

const FIRST_FIELDS = API_TRANSACTION_FIELDS[API_VERSIONS[0]];

/** The transaction object of API versions 1.0–1.16. */
export class TransactionV1Doc {}
documentFields(TransactionV1Doc, FIRST_FIELDS);

/** The transaction object from API version 1.17 (and of the platform API): 1.0's and `3dsecure`. */
export class TransactionV117Doc extends TransactionV1Doc {}
documentFields(
  TransactionV117Doc,
  API_TRANSACTION_FIELDS[THREE_D_SECURE_SINCE_API_VERSION].filter((field) => !FIRST_FIELDS.includes(field)),
);

const NEXT_CURSOR = {
  nullable: true,
  type: 'string',
  description: 'Pass as `cursor` for the next page; null on the last page.',
} as const;

/** A page of API versions 1.0–1.16. */
export class TransactionPageDoc {
  @ApiProperty({ type: [TransactionV1Doc], description: 'In the requested `order`.' }) data!: TransactionV1Doc[];
  @ApiProperty(NEXT_CURSOR) nextCursor!: string | null;
}

/** A page of API version 1.17. */
export class TransactionPageV117Doc {
  @ApiProperty({ type: [TransactionV117Doc], description: 'In the requested `order`.' }) data!: TransactionV117Doc[];
  @ApiProperty(NEXT_CURSOR) nextCursor!: string | null;
}
