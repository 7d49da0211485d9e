import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SUBSCRIPTION_EVENTS, type SubscriptionEvent } from '#domain';
import { IsIn, IsOptional, IsString, IsUUID, Matches } from 'class-validator';
import { IsText } from '../common/text.js';
import { IsAmount, IsCurrency } from '../common/money.js';
import { SUBSCRIPTION_STATUSES } from './subscription.lifecycle.js';

/**
 * `daily`, `weekly`, `monthly`, `quarterly`, `yearly`, or an ISO 8601 duration in days/weeks/months/years (P1M, P2W,
 * P1Y6M) longer than zero: some part of it is not 0 (P0D, P0Y0M are refused).
 */
export const INTERVAL_PATTERN =
  /^(daily|weekly|monthly|quarterly|yearly|P(?=\d)(?=.*[1-9])(\d{1,3}Y)?(\d{1,3}M)?(\d{1,3}W)?(\d{1,4}D)?)$/;

export class CreateSubscriptionDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Optional idempotency key, becomes the subscription id: the same id with the same data again answers 200 with ' +
      'the stored subscription as it is now and emits no event; with different data 409. Generated when absent.',
  })
  @IsOptional()
  @IsUUID('all')
  id?: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  merchantId!: string;

  @ApiPropertyOptional({ format: 'uuid', nullable: true })
  @IsOptional()
  @IsUUID('all')
  integrationId?: string | null;

  @ApiPropertyOptional({ nullable: true, minLength: 1, maxLength: 255 })
  @IsOptional()
  @IsText(1, 255)
  referenceId?: string | null;

  @IsAmount()
  amount!: number;

  @IsCurrency()
  currency!: string;

  @ApiProperty({
    description:
      'Billing interval: daily, weekly, monthly, quarterly, yearly, or an ISO 8601 duration of days/weeks/months/years (P1M, P2W, P1Y).',
    example: 'P1M',
    pattern: INTERVAL_PATTERN.source,
  })
  @IsString()
  @Matches(INTERVAL_PATTERN, {
    message: 'must be daily, weekly, monthly, quarterly, yearly or an ISO 8601 duration longer than zero such as P1M',
  })
  interval!: string;
}

export class SubscriptionEventDto {
  @ApiProperty({ enum: SUBSCRIPTION_EVENTS })
  @IsIn(SUBSCRIPTION_EVENTS)
  event!: SubscriptionEvent;
}

export class SubscriptionDoc {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: SUBSCRIPTION_STATUSES }) status!: string;
  @ApiProperty({
    nullable: true,
    type: 'string',
    enum: SUBSCRIPTION_EVENTS,
    description: 'The event just recorded; null on creation.',
  })
  event!: string | null;
  @ApiProperty({ nullable: true, type: 'string' }) referenceId!: string | null;
  @ApiProperty({ type: 'integer' }) amount!: number;
  @ApiProperty() currency!: string;
  @ApiProperty() interval!: string;
  @ApiProperty({ nullable: true, type: 'string', format: 'uuid' }) integrationId!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}
