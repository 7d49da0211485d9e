import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { ProblemException } from '#platform';
import { isUuid } from './uuid.js';

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
