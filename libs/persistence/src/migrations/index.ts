import { Merchants1763800000000 } from './1763800000000-merchants.js';
import { Webhooks1763800100000 } from './1763800100000-webhooks.js';
import { BackendUsers1763800300000 } from './1763800300000-backend-users.js';
import { Transactions1763800410000 } from './1763800410000-transactions.js';
import { WebhookLogWebhookFk1763800500000 } from './1763800500000-webhook-log-webhook-fk.js';
import { WebhookDeliveryWebhookIndex1763800600000 } from './1763800600000-webhook-delivery-webhook-index.js';
import { OutboxEventIdKey1763800700000 } from './1763800700000-outbox-event-id-key.js';
import { WebhookLogManual1763800800000 } from './1763800800000-webhook-log-manual.js';
import { WebhookDeliveryManualAttempts1763800900000 } from './1763800900000-webhook-delivery-manual-attempts.js';
import { TransactionUpdatedPageIndex1763801000000 } from './1763801000000-transaction-updated-page-index.js';
import { AppSchemasAndRoles1763801500000 } from './1763801500000-app-schemas-and-roles.js';
import { OutboxEventTraceparent1763801600000 } from './1763801600000-outbox-event-traceparent.js';
import { DeliveryPartitions1763801700000 } from './1763801700000-delivery-partitions.js';
import { LogOutcomeAndSearch1763801800000 } from './1763801800000-log-outcome-and-search.js';
import { WebhookLifecycle1763801900000 } from './1763801900000-webhook-lifecycle.js';
import { SupersededRepeats1763802000000 } from './1763802000000-superseded-repeats.js';
import { WebhookRate1763802100000 } from './1763802100000-webhook-rate.js';
import { WebhookNotices1763802200000 } from './1763802200000-webhook-notices.js';
import { FailingAndDisabledWebhookIndexes1763802300000 } from './1763802300000-failing-and-disabled-webhook-indexes.js';
import { LoginKnownAddress1763802400000 } from './1763802400000-login-known-address.js';
import { NoticeOutbox1763802500000 } from './1763802500000-notice-outbox.js';
import { DeliveryWait1763802600000 } from './1763802600000-delivery-wait.js';
import { RecoverJobs1763802700000 } from './1763802700000-recover-jobs.js';
import { DeliveryOutcome1763802800000 } from './1763802800000-delivery-outcome.js';
import { DeliveryOutcomeAttempts1763802900000 } from './1763802900000-delivery-outcome-attempts.js';
import { DeliveryOutcomeAttemptsBackfill1763802950000 } from './1763802950000-delivery-outcome-attempts-backfill.js';
import { WebhookEventsAppOwned1763803000000 } from './1763803000000-webhook-events-app-owned.js';
import { WebhookHeaders1763803100000 } from './1763803100000-webhook-headers.js';
import { OperationalEvents1763803200000 } from './1763803200000-operational-events.js';
import { CliSessions1763803300000 } from './1763803300000-cli-sessions.js';

/**
 * Every migration, oldest first. A new migration is a new file added at the end; applied ones are never edited.
 * Migrations run searching schema public only: from AppSchemasAndRoles on, each names the schema of every table it
 * touches (payments, backend, delivery) and grants a new table's owner role what AppSchemasAndRoles grants.
 */
export const MIGRATIONS = [
  Merchants1763800000000,
  Webhooks1763800100000,
  BackendUsers1763800300000,
  Transactions1763800410000,
  WebhookLogWebhookFk1763800500000,
  WebhookDeliveryWebhookIndex1763800600000,
  OutboxEventIdKey1763800700000,
  WebhookLogManual1763800800000,
  WebhookDeliveryManualAttempts1763800900000,
  TransactionUpdatedPageIndex1763801000000,
  AppSchemasAndRoles1763801500000,
  OutboxEventTraceparent1763801600000,
  DeliveryPartitions1763801700000,
  LogOutcomeAndSearch1763801800000,
  WebhookLifecycle1763801900000,
  SupersededRepeats1763802000000,
  WebhookRate1763802100000,
  WebhookNotices1763802200000,
  FailingAndDisabledWebhookIndexes1763802300000,
  LoginKnownAddress1763802400000,
  NoticeOutbox1763802500000,
  DeliveryWait1763802600000,
  RecoverJobs1763802700000,
  DeliveryOutcome1763802800000,
  DeliveryOutcomeAttempts1763802900000,
  DeliveryOutcomeAttemptsBackfill1763802950000,
  WebhookEventsAppOwned1763803000000,
  WebhookHeaders1763803100000,
  OperationalEvents1763803200000,
  CliSessions1763803300000,
];
