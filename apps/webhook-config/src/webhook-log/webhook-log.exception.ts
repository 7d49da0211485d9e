import { DomainException } from '#platform';

export enum WebhookLogExceptionCode {
  INVALID_CURSOR = 'INVALID_CURSOR',
}

export class WebhookLogException extends DomainException<WebhookLogExceptionCode> {}
