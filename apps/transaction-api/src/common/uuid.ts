import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ProblemException } from '#platform';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);

/** Validates a UUID path parameter (any version), answering 400 naming the parameter; returns it lower-cased. */
@Injectable()
export class UuidParamPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, metadata: ArgumentMetadata): string {
    if (!isUuid(value)) {
      throw ProblemException.validation([{ field: metadata.data ?? 'id', message: 'must be a UUID' }]);
    }
    return value.toLowerCase();
  }
}
