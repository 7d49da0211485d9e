import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import { IsAmount, IsCurrency } from '../common/money.js';

export class CreatePayoutDto {
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
