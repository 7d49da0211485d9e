import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** `POST /api/session`. Deliberately loose: any wrong value gets the same generic answer. */
export class SignInDto {
  @ApiProperty({ example: 'owner@shop.example' })
  @IsString({ message: 'email must be a string' })
  @IsNotEmpty({ message: 'email must not be empty' })
  @MaxLength(254, { message: 'email must be at most 254 characters long' })
  email!: string;

  @ApiProperty({ writeOnly: true })
  @IsString({ message: 'password must be a string' })
  @IsNotEmpty({ message: 'password must not be empty' })
  @MaxLength(256, { message: 'password must be at most 256 characters long' })
  password!: string;
}
