import { Injectable, PipeTransform } from '@nestjs/common';
import { isApiVersion, type ApiVersion } from '#domain';
import { ProblemException } from '#platform';

/** The `{version}` of `/v{version}/…`: a served API version, or a 404 problem like an unknown route. */
@Injectable()
export class ApiVersionPipe implements PipeTransform<unknown, ApiVersion> {
  transform(value: unknown): ApiVersion {
    const version = typeof value === 'string' && value.startsWith('v') ? value.slice(1) : value;
    if (!isApiVersion(version)) {
      throw new ProblemException(
        404,
        'There is no such API version; versions 1.0 to 1.17 are served, e.g. /v1.17/transactions.',
        {
          type: 'urn:problem:unknown-api-version',
        },
      );
    }
    return version;
  }
}
