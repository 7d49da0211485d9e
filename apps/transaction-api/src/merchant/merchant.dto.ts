import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { IsText } from '../common/text.js';

export class CreateMerchantDto {
  @ApiProperty({
    description: 'Display name, 1–200 characters, not blank.',
    minLength: 1,
    maxLength: 200,
    example: 'Velo Shop AG',
  })
  @IsText(1, 200)
  @Matches(/\S/, { message: 'must not be blank' })
  name!: string;
}

export class CreateIntegrationDto {
  @ApiProperty({
    description: 'Display name, 1–200 characters, not blank.',
    minLength: 1,
    maxLength: 200,
    example: 'Web shop',
  })
  @IsText(1, 200)
  @Matches(/\S/, { message: 'must not be blank' })
  name!: string;
}

export class MerchantResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
}

export class IntegrationResponse {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({
    description:
      "The integration's API key (`pk_` + 43 characters). Shown only in this response; stored only as a SHA-256 hash.",
    example: 'pk_3q2-7wXb9cQ1sU0vT5yZ8aB4dE6fG7hJ9kL0mN2pQ4r',
  })
  apiKey!: string;
}
