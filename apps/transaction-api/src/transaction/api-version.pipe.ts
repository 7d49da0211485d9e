import { Injectable, PipeTransform } from '@nestjs/common';
import { API_VERSIONS, isApiVersion, LATEST_API_VERSION, type ApiVersion } from '#domain';
import { ProblemException } from '#platform';

/** The `{version}` of `/v{version}/…`: a served API version, or a 404 problem like an unknown route. */
@Injectable()
export class ApiVersionPipe implements PipeTransform<unknown, ApiVersion> {
  transform(value: unknown): ApiVersion {
    // The route `/v:version/…` has taken the `v` off already: `/vv1.0/…` arrives as `v1.0`, not a version.
    if (!isApiVersion(value)) {
      throw new ProblemException(
        404,
        `There is no such API version; versions ${API_VERSIONS[0]} to ${LATEST_API_VERSION} are served, e.g. ` +
          `/v${LATEST_API_VERSION}/transactions.`,
        {
          type: 'urn:problem:unknown-api-version',
        },
      );
    }
    return value;
  }
}
