import { problemTable, VALIDATION_PROBLEM } from '#platform';
import { WebhookException, WebhookExceptionCode } from './webhook.exception.js';

/** How WebhookException's codes are answered (given to createHttpApp through the app's problem list). */
export const WEBHOOK_PROBLEMS = problemTable(WebhookException, {
  [WebhookExceptionCode.NOT_FOUND]: { status: 404 },
  [WebhookExceptionCode.LIMIT_REACHED]: { status: 409 },
  [WebhookExceptionCode.INVALID_SETTINGS]: VALIDATION_PROBLEM,
});
