import { problemTable } from '#platform';
import { WebhookRecoverException, WebhookRecoverExceptionCode } from './webhook-recover.exception.js';

/** How WebhookRecoverException's codes are answered (given to createHttpApp through the app's problem list). */
export const WEBHOOK_RECOVER_PROBLEMS = problemTable(WebhookRecoverException, {
  [WebhookRecoverExceptionCode.WEBHOOK_DISABLED]: {
    status: 409,
    type: 'urn:problem:webhook-disabled',
    title: 'Webhook disabled',
  },
  [WebhookRecoverExceptionCode.INVALID_SINCE]: { status: 400 },
  [WebhookRecoverExceptionCode.RECOVER_RUNNING]: {
    status: 409,
    type: 'urn:problem:recover-running',
    title: 'A recover is running',
  },
  [WebhookRecoverExceptionCode.NO_RECOVER]: { status: 404 },
  [WebhookRecoverExceptionCode.NOT_QUEUED]: { status: 503 },
});
