import { DomainException } from '#platform';

export enum WebhookRecoverExceptionCode {
  WEBHOOK_DISABLED = 'WEBHOOK_DISABLED',
  INVALID_SINCE = 'INVALID_SINCE',
  RECOVER_RUNNING = 'RECOVER_RUNNING',
  NO_RECOVER = 'NO_RECOVER',
  NOT_QUEUED = 'NOT_QUEUED',
}

export class WebhookRecoverException extends DomainException<WebhookRecoverExceptionCode> {}
