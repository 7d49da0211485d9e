import { DomainException } from '#platform';

export enum WebhookExceptionCode {
  /** Unknown, or another merchant's. */
  NOT_FOUND = 'NOT_FOUND',
  /** The merchant has the most webhooks allowed. */
  LIMIT_REACHED = 'LIMIT_REACHED',
  /** Settings a DTO cannot judge alone (the URL's target, the integration, the events): `errors` names each. */
  INVALID_SETTINGS = 'INVALID_SETTINGS',
}

export class WebhookException extends DomainException<WebhookExceptionCode> {}

export const webhookNotFound = () =>
  new WebhookException('There is no webhook with this id.', WebhookExceptionCode.NOT_FOUND);
