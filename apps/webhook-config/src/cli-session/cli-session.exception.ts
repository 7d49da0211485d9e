import { DomainException } from '#platform';

export enum CliSessionExceptionCode {
  /** No API key on the request. */
  API_KEY_MISSING = 'API_KEY_MISSING',
  /** Not the shape of an API key (`pk_` and 43 characters). */
  API_KEY_MALFORMED = 'API_KEY_MALFORMED',
  /** No integration has this key. */
  API_KEY_UNKNOWN = 'API_KEY_UNKNOWN',
  /** No live session of the key's integration (or of the signed-in merchant) with this id. */
  SESSION_NOT_FOUND = 'SESSION_NOT_FOUND',
  /** The integration has as many live sessions as it may. */
  TOO_MANY_SESSIONS = 'TOO_MANY_SESSIONS',
  /** The broker did not take the session's queue or a sample event. */
  NOT_QUEUED = 'NOT_QUEUED',
}

export class CliSessionException extends DomainException<CliSessionExceptionCode> {}
