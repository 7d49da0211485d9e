import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { IsAmount, IsCurrency } from '../common/money.js';

export class CreatePayoutDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Optional idempotency key, becomes the payout id: the same id with the same data again answers 200 with the ' +
      'stored payout and emits no event; with different data 409. Generated when absent.',
  })
  @IsOptional()
  @IsUUID('all')
  id?: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  merchantId!: string;

  @IsAmount()
  amount!: number;

  @IsCurrency()
  currency!: string;
}

export class PayoutDoc {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['initialised'], description: 'A new payout is `initialised`.' }) status!: string;
  @ApiProperty({ type: 'integer' }) amount!: number;
  @ApiProperty() currency!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}
