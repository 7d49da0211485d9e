import { problemTable, VALIDATION_PROBLEM } from '#platform';
import { WebhookLogException, WebhookLogExceptionCode } from './webhook-log.exception.js';

/** How WebhookLogException's codes are answered (given to createHttpApp through the app's problem list). */
export const WEBHOOK_LOG_PROBLEMS = problemTable(WebhookLogException, {
  [WebhookLogExceptionCode.INVALID_CURSOR]: VALIDATION_PROBLEM,
});
