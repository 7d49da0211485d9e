import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  API_VERSIONS,
  LATEST_API_VERSION,
  THREE_D_SECURE_SINCE_API_VERSION,
  PAYMENT_METHOD_MAX_LENGTH,
  TRANSACTION_STATUSES,
  TRANSACTION_TYPES,
  isPaymentMethod,
  PAYMENT_METHOD_OPEN_API,
  type PaymentMethod,
  type RawAuthentication,
  type TransactionStatus,
  type TransactionType,
} from '#domain';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, Min, ValidateBy } from 'class-validator';
import { IsText } from '../common/text.js';
import { IsAmount, IsCurrency } from '../common/money.js';
import { IsInstant, parseInstant } from '#platform';
import { IsRawAuthentication } from './raw-authentication.validator.js';
import { DEFAULT_ORDER, TRANSACTION_ORDERS, type TransactionOrder } from './transaction.cursor.js';

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

/** A payment method slug ({@link isPaymentMethod}); a value of another type is told "must be a string". */
const IsPaymentMethod = () =>
  ValidateBy({
    name: 'isPaymentMethod',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || isPaymentMethod(value),
      defaultMessage: () =>
        `must be a lowercase slug of at most ${PAYMENT_METHOD_MAX_LENGTH} characters: letters a-z and digits, ` +
        'words joined by single hyphens (e.g. visa, bank-transfer)',
    },
  });

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

  @ApiProperty(PAYMENT_METHOD_OPEN_API)
  @IsString()
  @IsPaymentMethod()
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

/**
 * A range's end (exclusive) after its start (inclusive), when both are date-times (each is checked on its own by
 * IsInstant): an end at or before the start selects nothing, which is a mistake (swapped bounds, say), not a query.
 */
const IsAfter = (from: 'createdFrom' | 'updatedFrom') =>
  ValidateBy({
    name: 'isAfter',
    constraints: [from],
    validator: {
      validate: (to: unknown, args) => {
        const start = parseInstant((args?.object as Record<string, unknown>)[from]);
        const end = parseInstant(to);
        return start === undefined || end === undefined || end.getTime() > start.getTime();
      },
      defaultMessage: () => `must be after ${from}`,
    },
  });

const ZONED = ' An ISO 8601 date-time with `Z` or an offset; a bare date or a time without a zone is refused (400).';

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
    description: 'Only transactions created at or after this instant (inclusive).' + ZONED,
  })
  @IsOptional()
  @IsInstant()
  createdFrom?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only transactions created before this instant (exclusive); must be after `createdFrom`.' + ZONED,
  })
  @IsOptional()
  @IsInstant()
  @IsAfter('createdFrom')
  createdTo?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Only transactions changed (created or given a new status) at or after this instant (inclusive). With ' +
      '`order=updatedAt`: every transaction changed since then, for catching up after downtime.' +
      ZONED,
  })
  @IsOptional()
  @IsInstant()
  updatedFrom?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Only transactions last changed before this instant (exclusive); must be after `updatedFrom`.' + ZONED,
  })
  @IsOptional()
  @IsInstant()
  @IsAfter('updatedFrom')
  updatedTo?: string;

  @ApiPropertyOptional({
    enum: TRANSACTION_ORDERS,
    default: DEFAULT_ORDER,
    description:
      '`-createdAt`: newest first, by (createdAt, uuid) descending. `updatedAt`: oldest change first, by ' +
      '(updatedAt, uuid) ascending; a transaction changed again while a client follows the cursors moves behind ' +
      'them and appears again. A cursor works only with the order it was returned for.',
  })
  @IsOptional()
  @IsIn(TRANSACTION_ORDERS)
  order?: TransactionOrder;
}

/**
 * The versions of the `{version}` path parameter. The latest has paths of its own (`/v<LATEST_API_VERSION>/…`,
 * TransactionLatestController), so that a client generated from the OpenAPI document knows its shape by the path.
 */
export const PATH_PARAMETER_API_VERSIONS = API_VERSIONS.filter((version) => version !== LATEST_API_VERSION);

export const API_VERSION_DESCRIPTION =
  `API version: one of ${PATH_PARAMETER_API_VERSIONS.join(', ')} (${LATEST_API_VERSION} has paths of its own, ` +
  `with \`3dsecure\`). Before ${THREE_D_SECURE_SINCE_API_VERSION} the transaction object has no \`3dsecure\` key. ` +
  'Any other version answers 404.';
