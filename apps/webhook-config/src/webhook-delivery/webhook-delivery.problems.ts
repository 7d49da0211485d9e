import { problemTable, VALIDATION_PROBLEM } from '#platform';
import { WebhookDeliveryException, WebhookDeliveryExceptionCode } from './webhook-delivery.exception.js';

/** How WebhookDeliveryException's codes are answered (given to createHttpApp through the app's problem list). */
export const WEBHOOK_DELIVERY_PROBLEMS = problemTable(WebhookDeliveryException, {
  [WebhookDeliveryExceptionCode.LOG_ENTRY_NOT_FOUND]: { status: 404 },
  [WebhookDeliveryExceptionCode.RESEND_LIMIT_REACHED]: {
    status: 409,
    type: 'urn:problem:resend-limit',
    title: 'Resend limit reached',
  },
  [WebhookDeliveryExceptionCode.DELIVERY_EXPIRED]: {
    status: 410,
    type: 'urn:problem:delivery-expired',
    title: 'Delivery no longer kept',
  },
  [WebhookDeliveryExceptionCode.NOT_QUEUED]: { status: 503 },
  [WebhookDeliveryExceptionCode.EVENT_TYPE_NOT_SELECTED]: VALIDATION_PROBLEM,
});
