import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsISO4217CurrencyCode, Matches, Max, Min } from 'class-validator';

/**
 * Largest accepted amount in minor units: 100 billion minor units (CHF 1,000,000,000.00). Far above any real
 * payment, far below 2^53, so amounts stay exact in JSON and in JavaScript numbers.
 */
export const AMOUNT_MAX = 100_000_000_000;

/** A positive amount in minor units (1990 = 19.90). */
export function IsAmount(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      description: `Amount in minor units of the currency (1990 = 19.90), a positive integer up to ${AMOUNT_MAX}.`,
      type: 'integer',
      minimum: 1,
      maximum: AMOUNT_MAX,
      example: 1990,
    }),
    IsInt({ message: 'must be an integer number of minor units' }),
    Min(1, { message: 'must be at least 1 (minor units)' }),
    Max(AMOUNT_MAX, { message: `must not exceed ${AMOUNT_MAX} (minor units)` }),
  );
}

/** An ISO 4217 currency code: three upper-case letters of a currency that exists. */
export function IsCurrency(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      description: 'ISO 4217 currency code, three upper-case letters.',
      pattern: '^[A-Z]{3}$',
      example: 'CHF',
    }),
    Matches(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 currency code of three upper-case letters' }),
    IsISO4217CurrencyCode({ message: 'must be an ISO 4217 currency code' }),
  );
}
