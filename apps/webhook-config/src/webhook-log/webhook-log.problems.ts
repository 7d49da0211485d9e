import { registerProblems, VALIDATION_PROBLEM } from '#platform';
import { WebhookLogException, WebhookLogExceptionCode } from './webhook-log.exception.js';

registerProblems(WebhookLogException, {
  [WebhookLogExceptionCode.INVALID_CURSOR]: VALIDATION_PROBLEM,
});
