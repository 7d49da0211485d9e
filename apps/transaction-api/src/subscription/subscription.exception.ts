import { DomainException } from '#platform';

export enum SubscriptionExceptionCode {
  NOT_FOUND = 'NOT_FOUND',
  /** The id names a subscription recorded with different data. */
  IDEMPOTENCY_CONFLICT = 'IDEMPOTENCY_CONFLICT',
  /** The event is not allowed in the subscription's status. */
  EVENT_FORBIDDEN = 'EVENT_FORBIDDEN',
}

export class SubscriptionException extends DomainException<SubscriptionExceptionCode> {}
