import { DomainException } from '#platform';

export enum TransactionExceptionCode {
  NOT_FOUND = 'NOT_FOUND',
  /** The uuid names a transaction recorded with different data. */
  IDEMPOTENCY_CONFLICT = 'IDEMPOTENCY_CONFLICT',
  CREATED_AT_IN_FUTURE = 'CREATED_AT_IN_FUTURE',
  STATUS_TRANSITION_FORBIDDEN = 'STATUS_TRANSITION_FORBIDDEN',
  /** The status kept changing under a status change: the caller sends it again. */
  CONCURRENT_STATUS_CHANGE = 'CONCURRENT_STATUS_CHANGE',
  INVALID_CURSOR = 'INVALID_CURSOR',
}

export class TransactionException extends DomainException<TransactionExceptionCode> {}
