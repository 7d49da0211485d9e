import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FieldError } from './problem.js';
import { ProblemException } from './problem.js';
import { sendProblem } from './problem.filter.js';

/**
 * The one input guard of the HTTP edge (both apps): text a request carries, in its query, path parameters, header
 * fields and JSON body, must be well-formed Unicode without NUL. PostgreSQL cannot store a NUL in text (the
 * statement fails: a 500 after validation), and a lone surrogate cannot be encoded as UTF-8 at all; neither is a
 * value any field means. So each is refused here, as a 400 naming the field, before any validation or handler, and
 * no statement ever sees one. Also refused: percent-encoding in the query that is not UTF-8, and in JSON bodies
 * keys that could reach an object's prototype (`__proto__`, `constructor.prototype`).
 */

export const NUL_MESSAGE = 'must not contain NUL characters';
export const UNICODE_MESSAGE = 'must be well-formed Unicode text (no lone surrogates or invalid UTF-8)';
export const PROTOTYPE_MESSAGE = 'is a key that is not accepted (__proto__, constructor.prototype)';

/** Deeper than the body parser lets through (json-depth.ts): the walk never recurses without bound. */
const MAX_WALK_DEPTH = 64;

/** With the `u` flag a surrogate pair is one code point, so what matches is a surrogate on its own. */
const LONE_SURROGATE = /\p{Surrogate}/u;

function textProblem(text: string): string | undefined {
  if (text.includes('\0')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(text)) return UNICODE_MESSAGE;
  return undefined;
}

/** The first field of `value` (`field` itself, or `field.key`, `field.0` below it) that breaks the rules. */
export function illFormedField(value: unknown, field: string, depth = 0): FieldError | undefined {
  if (typeof value === 'string') {
    const message = textProblem(value);
    return message ? { field, message } : undefined;
  }
  if (typeof value !== 'object' || value === null || depth > MAX_WALK_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = illFormedField(value[index], join(field, String(index)), depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const keyField = join(field, key);
    const keyMessage = textProblem(key);
    if (keyMessage) return { field: keyField, message: keyMessage };
    const child = (value as Record<string, unknown>)[key];
    if (
      key === '__proto__' ||
      (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype'))
    ) {
      return { field: keyField, message: PROTOTYPE_MESSAGE };
    }
    const found = illFormedField(child, keyField, depth + 1);
    if (found) return found;
  }
  return undefined;
}

const join = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

/** A query parameter whose percent-encoding does not decode as UTF-8 (Fastify's parser passes those on as they are). */
function undecodableQueryParameter(url: string): FieldError | undefined {
  const start = url.indexOf('?');
  if (start < 0) return undefined;
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    const rawKey = equals < 0 ? pair : pair.slice(0, equals);
    const rawValue = equals < 0 ? '' : pair.slice(equals + 1);
    const key = decode(rawKey);
    if (key === undefined) return { field: '(query parameter name)', message: UNICODE_MESSAGE };
    if (decode(rawValue) === undefined) return { field: key, message: UNICODE_MESSAGE };
  }
  return undefined;
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** The first field of a request's URL and header fields that breaks the rules. */
export function illFormedRequestField(request: FastifyRequest): FieldError | undefined {
  return (
    undecodableQueryParameter(request.url) ??
    illFormedField(request.query, '') ??
    illFormedField(request.params, '') ??
    illFormedField(request.headers, '')
  );
}

/** Refuses, at `preValidation` (body parsed, no handler yet), a request with ill-formed text anywhere. */
export function addInputGuard(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', (request, reply, done) => {
    const found = illFormedRequestField(request);
    if (!found) {
      done();
      return;
    }
    sendProblem(reply, ProblemException.validation([found]).problem);
  });
}

/** Strict UTF-8: a request body with bytes that are not UTF-8 is refused rather than read with replacement marks. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Parses a JSON request body (the caller has checked its nesting) and applies the guard's rules to it: the problem
 * to answer, or the value.
 */
export function parseJsonBody(body: Buffer): { value: unknown } | { problem: ProblemException } {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return { problem: new ProblemException(400, 'The request body is not valid UTF-8.') };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: new ProblemException(400, 'The request body is not valid JSON.') };
  }
  const found = illFormedField(value, '');
  if (found) return { problem: ProblemException.validation([found]) };
  return { value };
}
