import { HttpStatus } from '@nestjs/common';
import type { FieldError } from '../errors/domain.exception.js';

export type { FieldError };

/** RFC 9457 problem details, the body of every error response. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldError[];
  /** /health/ready only: each dependency's state (`up` or `down`). */
  checks?: Record<string, string>;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Problem types are documented in the README; the URN names the kind of error, stable across versions. */
export const problemType = (code: string) => `urn:problem:${code}`;

const TITLES: Record<number, [code: string, title: string]> = {
  400: ['bad-request', 'Bad request'],
  401: ['unauthorized', 'Unauthorized'],
  403: ['forbidden', 'Forbidden'],
  404: ['not-found', 'Not found'],
  405: ['method-not-allowed', 'Method not allowed'],
  408: ['request-timeout', 'Request timeout'],
  409: ['conflict', 'Conflict'],
  413: ['payload-too-large', 'Payload too large'],
  414: ['uri-too-long', 'URI too long'],
  415: ['unsupported-media-type', 'Unsupported media type'],
  422: ['unprocessable', 'Unprocessable request'],
  429: ['too-many-requests', 'Too many requests'],
  431: ['request-header-fields-too-large', 'Request header fields too large'],
  500: ['internal', 'Internal server error'],
  503: ['unavailable', 'Service unavailable'],
};

export function problemFor(status: number, detail: string, extra: Partial<Problem> = {}): Problem {
  const [code, title] = TITLES[status] ?? [String(status), HttpStatus[status] ?? 'Error'];
  return { type: problemType(code), title, status, detail, ...extra };
}

/** Throw from anywhere in a request to answer with this problem. */
export class ProblemException extends Error {
  readonly problem: Problem;
  constructor(status: number, detail: string, extra: Partial<Problem> = {}) {
    super(detail);
    this.name = 'ProblemException';
    this.problem = problemFor(status, detail, extra);
  }

  static validation(errors: FieldError[], detail = 'The request has invalid fields.'): ProblemException {
    return new ProblemException(400, detail, { type: problemType('validation'), title: 'Invalid request', errors });
  }
}
