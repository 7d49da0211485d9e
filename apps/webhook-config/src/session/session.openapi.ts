import { applyDecorators, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants.js';
import { ApiSecurity } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { SAFE_METHODS } from './session.guard.js';

/**
 * OpenAPI: what SessionGuard asks of a request with this HTTP method (the session cookie, and on a mutating
 * method the CSRF header too, both at once) and the problems it answers without them.
 */
export function ApiSession(method: string): MethodDecorator {
  const csrf = !SAFE_METHODS.has(method);
  return applyDecorators(
    ApiSecurity(csrf ? { session: [], csrf: [] } : { session: [] }),
    ApiProblems(csrf ? [401, 403] : [401], { 401: 'Not signed in, or the session has ended.' }),
  );
}

/** For a controller behind SessionGuard: {@link ApiSession} on each of its routes, by the route's HTTP method. */
export function ApiSessionRoutes(): ClassDecorator {
  return (target) => {
    for (const key of Object.getOwnPropertyNames(target.prototype)) {
      const descriptor = Object.getOwnPropertyDescriptor(target.prototype, key);
      if (!descriptor) continue;
      const method = Reflect.getMetadata(METHOD_METADATA, descriptor.value) as RequestMethod | undefined;
      if (method !== undefined) ApiSession(RequestMethod[method])(target.prototype, key, descriptor);
    }
  };
}
