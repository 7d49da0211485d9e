import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { TextLength } from '#platform';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 256;

/** `POST /internal/merchants/{merchantId}/users`. */
export class CreateBackendUserDto {
  @ApiProperty({ example: 'owner@shop.example' })
  // Validated as stored (trimmed, lower-case): lower-casing can lengthen a text ("İ" becomes two characters).
  @Transform(({ value }) => (typeof value === 'string' ? normalizeEmail(value) : value))
  @IsString({ message: 'email must be a string' })
  @TextLength(1, 254, { message: 'email must be at most 254 characters long' })
  @IsEmail({}, { message: 'email must be an e-mail address' })
  email!: string;

  @ApiProperty({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH, writeOnly: true })
  @IsString({ message: 'password must be a string' })
  @MinLength(PASSWORD_MIN_LENGTH, { message: `password must be at least ${PASSWORD_MIN_LENGTH} characters long` })
  @MaxLength(PASSWORD_MAX_LENGTH, { message: `password must be at most ${PASSWORD_MAX_LENGTH} characters long` })
  @Matches(/\S/, { message: 'password must not be only spaces' })
  password!: string;
}

/** E-mail addresses are compared case-insensitively: stored and looked up trimmed and lower-case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
