import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, ProblemException } from './problem.js';

/**
 * Rules that make a field's other rules moot when they fail, most basic first: a value of the wrong type fails its
 * range and length rules too, and their messages ("must not be greater than 100" for "abc") would not be true.
 */
const TYPE_RULES = ['isDefined', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isArray', 'isObject'];

/**
 * What is wrong with one field, each message once and without the property name class-validator puts first (the
 * field is in `field`): that it is missing, else that it has the wrong type, else every rule it breaks.
 */
function messagesOf(error: ValidationError): string[] {
  const constraints = error.constraints ?? {};
  if (Object.keys(constraints).length === 0) return [];
  if (error.value === undefined) return ['is required'];
  const typeRule = TYPE_RULES.find((rule) => rule in constraints);
  const messages = typeRule ? [constraints[typeRule]] : Object.values(constraints);
  const prefix = `${error.property} `;
  return [...new Set(messages.map((message) => (message.startsWith(prefix) ? message.slice(prefix.length) : message)))];
}

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = messagesOf(error).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * The query parameters sent more than once (Fastify makes their values lists) whose DTO property is not a list.
 * Unknown parameters are left to the whitelist.
 */
function repeatedParameters(query: unknown, metatype: ArgumentMetadata['metatype']): string[] {
  if (!metatype || typeof query !== 'object' || query === null) return [];
  return Object.entries(query)
    .filter(([key, value]) => {
      if (!Array.isArray(value)) return false; // the usual case: no metadata lookup on the read path
      const type: unknown = Reflect.getMetadata('design:type', metatype.prototype as object, key);
      return type !== undefined && type !== Array;
    })
    .map(([key]) => key);
}

/**
 * Validates DTOs; unknown fields are rejected; failures become a problem listing each field. A query parameter
 * given more than once is refused (unless its property is a list), and the others are still checked.
 */
class ProblemValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const repeated = metadata.type === 'query' ? repeatedParameters(value, metadata.metatype) : [];
    if (repeated.length === 0) return super.transform(value, metadata);
    const errors: FieldError[] = repeated.map((field) => ({ field, message: 'must be given only once' }));
    const others = Object.fromEntries(Object.entries(value as object).filter(([key]) => !repeated.includes(key)));
    try {
      await super.transform(others, metadata);
    } catch (error) {
      if (!(error instanceof ProblemException)) throw error;
      errors.push(...(error.problem.errors ?? []));
    }
    throw ProblemException.validation(errors);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new ProblemValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    // The values stay in memory (a missing field is told from a wrong one by them); messages never include them.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => ProblemException.validation(flatten(errors)),
  });
}
