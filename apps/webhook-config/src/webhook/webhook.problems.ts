import { registerProblems, VALIDATION_PROBLEM } from '#platform';
import { WebhookException, WebhookExceptionCode } from './webhook.exception.js';

registerProblems(WebhookException, {
  [WebhookExceptionCode.NOT_FOUND]: { status: 404 },
  [WebhookExceptionCode.LIMIT_REACHED]: { status: 409 },
  [WebhookExceptionCode.INVALID_SETTINGS]: VALIDATION_PROBLEM,
});
