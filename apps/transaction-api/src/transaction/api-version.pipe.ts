import { Injectable, PipeTransform } from '@nestjs/common';
import { isApiVersion, type ApiVersion } from '#domain';
import { ProblemException } from '#platform';

/** The `{version}` of `/v{version}/…`: a served API version, or a 404 problem like an unknown route. */
@Injectable()
export class ApiVersionPipe implements PipeTransform<unknown, ApiVersion> {
  transform(value: unknown): ApiVersion {
    // The route `/v:version/…` has taken the `v` off already: `/vv1.17/…` arrives as `v1.17`, not a version.
    if (!isApiVersion(value)) {
      throw new ProblemException(
        404,
        'There is no such API version; versions 1.0 to 1.17 are served, e.g. /v1.17/transactions.',
        {
          type: 'urn:problem:unknown-api-version',
        },
      );
    }
    return value;
  }
}
