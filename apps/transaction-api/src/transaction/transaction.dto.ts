import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  API_VERSIONS,
  PAYMENT_METHODS,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  type PaymentMethod,
  type RawAuthentication,
  type TransactionStatus,
  type TransactionType,
} from '#domain';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min, ValidateBy } from 'class-validator';
import { IsText } from '../common/text.js';
import { IsAmount, IsCurrency } from '../common/money.js';
import { IsInstant, parseInstant } from '../common/instant.js';
import { IsRawAuthentication } from './raw-authentication.validator.js';

/** OpenAPI only: the raw PSP result accepted in `authentication`. */
export class RawAuthenticationDoc {
  @ApiPropertyOptional({ description: 'ECI, one or two digits (`5` is read as `05`).', example: '05' })
  eci?: string;
  @ApiPropertyOptional({ description: '`3ds` or `token`.', example: '3ds' })
  source?: string;
  @ApiPropertyOptional({ description: '3-D Secure protocol version, e.g. `2.2.0` or `2.2`.', example: '2.2.0' })
  version?: string;
  @ApiPropertyOptional({ description: '`frictionless` or `challenge`, any letter case.', example: 'challenge' })
  flow?: string;
  @ApiPropertyOptional({
    description: 'Cryptogram. Accepted and dropped: never stored, logged or returned.',
    writeOnly: true,
  })
  cavv?: string;
  @ApiPropertyOptional({ description: 'Dropped: never stored, logged or returned.', writeOnly: true })
  dsTransactionId?: string;
  @ApiPropertyOptional({ description: 'Dropped: never stored, logged or returned.', writeOnly: true })
  acsTransactionId?: string;
  @ApiPropertyOptional({ description: 'Dropped: never stored, logged or returned.', writeOnly: true })
  threeDSServerTransactionId?: string;
}

export class CreateTransactionDto {
  @ApiProperty({ format: 'uuid', description: 'The merchant the payment belongs to.' })
  @IsUUID('all')
  merchantId!: string;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, description: 'An integration of that merchant, or null.' })
  @IsOptional()
  @IsUUID('all')
  integrationId?: string | null;

  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "Idempotency: the transaction's id. Sending the same uuid with the same data again answers 200 with the stored " +
      'transaction and emits no event; the same uuid with different data is refused with 409. Generated when absent.',
  })
  @IsOptional()
  @IsUUID('all')
  uuid?: string;

  @ApiPropertyOptional({
    nullable: true,
    minLength: 1,
    maxLength: 255,
    description: "The merchant's reference, e.g. an order number.",
  })
  @IsOptional()
  @IsText(1, 255)
  referenceId?: string | null;

  @ApiProperty({ enum: TRANSACTION_STATUSES, example: 'waiting' })
  @IsIn(TRANSACTION_STATUSES)
  status!: TransactionStatus;

  @ApiProperty({
    minLength: 1,
    maxLength: 100,
    example: 'Payrexx Direct',
    description: 'The payment service provider.',
  })
  @IsText(1, 100)
  psp!: string;

  @ApiProperty({ enum: TRANSACTION_TYPES, example: 'e-commerce' })
  @IsIn(TRANSACTION_TYPES)
  type!: TransactionType;

  @ApiProperty({ enum: PAYMENT_METHODS, example: 'visa' })
  @IsIn(PAYMENT_METHODS)
  paymentMethod!: PaymentMethod;

  @IsAmount()
  amount!: number;

  @IsCurrency()
  currency!: string;

  @ApiPropertyOptional({
    type: RawAuthenticationDoc,
    nullable: true,
    description:
      'The raw 3-D Secure / token authentication result from the PSP, or null/absent when not collected. Only its ' +
      'resolved form (`3dsecure`: eci, source, version, flow) is kept; the cryptogram and the 3-D Secure ids are dropped ' +
      'before anything is stored or logged. Any object of at most 32 fields is accepted (any JSON: strings up to 1,024 ' +
      'characters, lists and objects up to 32 entries, 32 levels deep); what the resolver cannot use gives 3dsecure null.',
  })
  @IsRawAuthentication()
  authentication?: RawAuthentication | null;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'For imports: when the payment happened (ISO 8601 with a time zone, years 1970–9999, kept to the millisecond; ' +
      'at most 5 minutes ahead of the server clock). Default: now.',
  })
  @IsOptional()
  @IsInstant()
  createdAt?: string;
}

export class ChangeTransactionStatusDto {
  @ApiProperty({ enum: TRANSACTION_STATUSES, example: 'confirmed' })
  @IsIn(TRANSACTION_STATUSES)
  status!: TransactionStatus;
}

/** Turns a query string of digits into a number; anything else stays as it is and fails validation. */
const toInteger = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : value;

const LIMIT = { message: 'must be an integer from 1 to 100' };

/** `createdTo` not before `createdFrom`, when both are date-times (each is checked on its own by IsInstant). */
const NotBeforeCreatedFrom = () =>
  ValidateBy({
    name: 'notBeforeCreatedFrom',
    validator: {
      validate: (createdTo: unknown, args) => {
        const from = parseInstant((args?.object as { createdFrom?: unknown }).createdFrom);
        const to = parseInstant(createdTo);
        return from === undefined || to === undefined || to.getTime() >= from.getTime();
      },
      defaultMessage: () => 'must not be before createdFrom',
    },
  });

export class ListTransactionsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size.' })
  @IsOptional()
  @Transform(toInteger)
  @IsInt(LIMIT)
  @Min(1, LIMIT)
  @Max(100, LIMIT)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page. Opaque.', maxLength: 200 })
  @IsOptional()
  @IsText(1, 200)
  cursor?: string;

  @ApiPropertyOptional({ enum: TRANSACTION_STATUSES })
  @IsOptional()
  @IsIn(TRANSACTION_STATUSES)
  status?: TransactionStatus;

  @ApiPropertyOptional({ minLength: 1, maxLength: 255, description: 'Exact match.' })
  @IsOptional()
  @IsText(1, 255)
  referenceId?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Exact match.' })
  @IsOptional()
  @IsText(1, 100)
  psp?: string;

  @ApiPropertyOptional({ enum: TRANSACTION_TYPES })
  @IsOptional()
  @IsIn(TRANSACTION_TYPES)
  type?: TransactionType;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only transactions created at or after this instant (inclusive).',
  })
  @IsOptional()
  @IsInstant()
  createdFrom?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only transactions created at or before this instant (inclusive).',
  })
  @IsOptional()
  @IsInstant()
  @NotBeforeCreatedFrom()
  createdTo?: string;
}

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

/** The transaction object of API versions 1.0–1.16. */
export class TransactionV1Doc {
  @ApiProperty({ format: 'uuid' }) uuid!: string;
  @ApiProperty({ nullable: true, type: 'string' }) referenceId!: string | null;
  @ApiProperty({ enum: TRANSACTION_STATUSES }) status!: string;
  @ApiProperty({ example: 'Payrexx Direct' }) psp!: string;
  @ApiProperty({ enum: TRANSACTION_TYPES }) type!: string;
  @ApiProperty({ enum: PAYMENT_METHODS }) paymentMethod!: string;
  @ApiProperty({ type: 'integer', description: 'Minor units.', example: 1990 }) amount!: number;
  @ApiProperty({ example: 'CHF' }) currency!: string;
  @ApiProperty({ nullable: true, type: 'string', format: 'uuid' }) integrationId!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** The transaction object from API version 1.17 (and of the platform API). */
export class TransactionV117Doc extends TransactionV1Doc {
  @ApiProperty({
    name: '3dsecure',
    type: ThreeDSecureDoc,
    nullable: true,
    description:
      'The 3-D Secure result (always present from 1.17): null unless an e-commerce card payment with a resolvable ' +
      'authentication. Exactly the keys eci, source, version, flow.',
  })
  '3dsecure'!: ThreeDSecureDoc | null;
}

@ApiExtraModels(TransactionV1Doc, TransactionV117Doc)
export class TransactionPageDoc {
  @ApiProperty({
    description:
      'Newest first. Objects of the requested version (1.0–1.16: TransactionV1Doc; 1.17: TransactionV117Doc).',
    type: 'array',
    items: {
      oneOf: [{ $ref: '#/components/schemas/TransactionV117Doc' }, { $ref: '#/components/schemas/TransactionV1Doc' }],
    },
  })
  data!: object[];
  @ApiProperty({
    nullable: true,
    type: 'string',
    description: 'Pass as `cursor` for the next page; null on the last page.',
  })
  nextCursor!: string | null;
}

export const API_VERSION_DESCRIPTION =
  `API version: one of ${API_VERSIONS.join(', ')}. Before 1.17 the transaction object has no \`3dsecure\` key; ` +
  'from 1.17 it always has it. Nothing else differs. Any other version answers 404.';
