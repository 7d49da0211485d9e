import { DomainException } from '#platform';

export enum PayoutExceptionCode {
  /** The id names a payout recorded with different data. */
  IDEMPOTENCY_CONFLICT = 'IDEMPOTENCY_CONFLICT',
}

export class PayoutException extends DomainException<PayoutExceptionCode> {}
