import { registerProblems } from '#platform';
import { WebhookDeliveryException, WebhookDeliveryExceptionCode } from './webhook-delivery.exception.js';

registerProblems(WebhookDeliveryException, {
  [WebhookDeliveryExceptionCode.LOG_ENTRY_NOT_FOUND]: { status: 404 },
  [WebhookDeliveryExceptionCode.RESEND_LIMIT_REACHED]: {
    status: 409,
    type: 'urn:problem:resend-limit',
    title: 'Resend limit reached',
  },
  [WebhookDeliveryExceptionCode.NOT_QUEUED]: { status: 503 },
});
