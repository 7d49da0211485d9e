import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsObject,
  IsString,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationArguments,
} from 'class-validator';
import {
  customHeaderNameProblem,
  customHeaderValueProblem,
  duplicateHeaderIndex,
  MAX_CUSTOM_HEADER_NAME_LENGTH,
  MAX_CUSTOM_HEADER_VALUE_LENGTH,
  MAX_CUSTOM_HEADERS,
} from '#domain';

/** A rule from a `problem(text)` function of #domain: the message is the problem it found (never the value). */
const ruleOf = (rule: string, problem: (text: string) => string | null): PropertyDecorator =>
  ValidateBy({
    name: rule,
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || problem(value) === null,
      defaultMessage: (args?: ValidationArguments) => problem(args?.value as string) ?? 'is invalid',
    },
  });

const NAME_DESCRIPTION =
  `An HTTP header name (RFC 7230 token characters, 1–${MAX_CUSTOM_HEADER_NAME_LENGTH}), unique in any letter case. ` +
  'Refused (any letter case): host, content-type, content-length, transfer-encoding, connection, user-agent, ' +
  'traceparent, tracestate, x-webhook-signature, keep-alive, te, trailer, upgrade, expect, webhook-*, proxy-*.';
const VALUE_DESCRIPTION =
  `1–${MAX_CUSTOM_HEADER_VALUE_LENGTH} printable ASCII characters and spaces, not starting or ending with a space ` +
  '(no line breaks, tabs or other control characters). Stored encrypted; never shown again (only `valueLast4`).';

/** A header as create sets it: name and value. */
export class CreateWebhookHeaderDto {
  @ApiProperty({ example: 'Authorization', description: NAME_DESCRIPTION })
  @IsDefined({ message: 'name is required' })
  @IsString({ message: 'name must be text' })
  @ruleOf('headerName', customHeaderNameProblem)
  name!: string;

  @ApiProperty({ example: 'Bearer shop-token-1234', description: VALUE_DESCRIPTION })
  @IsDefined({ message: 'value is required' })
  @IsString({ message: 'value must be text' })
  @ruleOf('headerValue', customHeaderValueProblem)
  value!: string;
}

/** A header as PATCH sets it: without `value`, the value stored for that name (any letter case) is kept. */
export class UpdateWebhookHeaderDto {
  @ApiProperty({ example: 'Authorization', description: NAME_DESCRIPTION })
  @IsDefined({ message: 'name is required' })
  @IsString({ message: 'name must be text' })
  @ruleOf('headerName', customHeaderNameProblem)
  name!: string;

  @ApiPropertyOptional({
    example: 'Bearer shop-token-1234',
    description: `${VALUE_DESCRIPTION} Absent: keep the value stored for this name.`,
  })
  @ValidateIf((_object, value) => value !== undefined)
  @IsString({ message: 'value must be text' })
  @ruleOf('headerValue', customHeaderValueProblem)
  value?: string;

  /** What GET shows; accepted and ignored, so a webhook read can be sent back as it is. */
  @ApiPropertyOptional({ readOnly: true, description: 'Ignored (what GET shows): send the list back as read.' })
  @ValidateIf((_object, value) => value !== undefined)
  @IsString({ message: 'valueLast4 must be text' })
  valueLast4?: string;
}

const listMessage = `headers must be a list of at most ${MAX_CUSTOM_HEADERS} {name, value}`;

/** The rules of the `headers` list (each entry's own rules are in its class). */
export const headersRules = (entry: () => new () => object): PropertyDecorator[] => [
  IsArray({ message: listMessage }),
  ArrayMaxSize(MAX_CUSTOM_HEADERS, { message: `headers may have at most ${MAX_CUSTOM_HEADERS} entries` }),
  IsObject({ each: true, message: 'headers must contain {name, value} objects' }),
  ValidateBy({
    name: 'uniqueHeaderNames',
    validator: {
      validate: (value: unknown) => !Array.isArray(value) || duplicateHeaderIndex(namesOf(value)) === -1,
      defaultMessage: (args?: ValidationArguments) => {
        const names = namesOf(args?.value as unknown[]);
        return `headers has "${names[duplicateHeaderIndex(names)]}" more than once (names are case-insensitive)`;
      },
    },
  }),
  ValidateNested({ each: true }),
  Type(entry),
];

const namesOf = (list: unknown[]): string[] =>
  list
    .map((entry) =>
      typeof entry === 'object' && entry !== null && typeof (entry as { name?: unknown }).name === 'string'
        ? (entry as { name: string }).name
        : '',
    )
    .filter((name) => name !== '');
