import { DomainException } from '#platform';

export enum WebhookDeliveryExceptionCode {
  LOG_ENTRY_NOT_FOUND = 'LOG_ENTRY_NOT_FOUND',
  RESEND_LIMIT_REACHED = 'RESEND_LIMIT_REACHED',
  DELIVERY_EXPIRED = 'DELIVERY_EXPIRED',
  NOT_QUEUED = 'NOT_QUEUED',
  /** A test of a kind of event the webhook does not select: `errors` names `eventType`. */
  EVENT_TYPE_NOT_SELECTED = 'EVENT_TYPE_NOT_SELECTED',
}

export class WebhookDeliveryException extends DomainException<WebhookDeliveryExceptionCode> {}
