import type { ProblemTable } from '#platform';
import { BACKEND_USER_PROBLEMS } from './auth/backend-user.problems.js';
import { CLI_SESSION_PROBLEMS } from './cli-session/cli-session.problems.js';
import { WEBHOOK_DELIVERY_PROBLEMS } from './webhook-delivery/webhook-delivery.problems.js';
import { WEBHOOK_LOG_PROBLEMS } from './webhook-log/webhook-log.problems.js';
import { WEBHOOK_RECOVER_PROBLEMS } from './webhook-recover/webhook-recover.problems.js';
import { WEBHOOK_PROBLEMS } from './webhook/webhook.problems.js';

/**
 * How webhook-config answers its features' DomainExceptions: every feature's problem table, given to createHttpApp.
 * A feature exception missing here would be a 500; app.problems.spec.ts fails on one.
 */
export const WEBHOOK_CONFIG_PROBLEMS: readonly ProblemTable[] = [
  BACKEND_USER_PROBLEMS,
  CLI_SESSION_PROBLEMS,
  WEBHOOK_DELIVERY_PROBLEMS,
  WEBHOOK_LOG_PROBLEMS,
  WEBHOOK_RECOVER_PROBLEMS,
  WEBHOOK_PROBLEMS,
];
