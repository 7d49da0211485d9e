import { DomainException } from '#platform';

export enum WebhookDeliveryExceptionCode {
  LOG_ENTRY_NOT_FOUND = 'LOG_ENTRY_NOT_FOUND',
  RESEND_LIMIT_REACHED = 'RESEND_LIMIT_REACHED',
  DELIVERY_EXPIRED = 'DELIVERY_EXPIRED',
  NOT_QUEUED = 'NOT_QUEUED',
}

export class WebhookDeliveryException extends DomainException<WebhookDeliveryExceptionCode> {}
