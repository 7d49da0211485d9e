import { ViewColumn, ViewEntity } from 'typeorm';
import type { LogOutcome, WebhookLogRequest } from '#persistence';

/**
 * One delivery attempt, as webhook-config reads it: through the dispatcher's view of its log (the table
 * delivery.webhook_log is the dispatcher's, which writes it in SQL). `status` is the HTTP status, 0 when no complete
 * response arrived in time, null when no request was made (`skipped`, `superseded`).
 */
@ViewEntity({ schema: 'delivery', name: 'webhook_log_for_webhook_config', synchronize: false })
export class WebhookLogEntity {
  @ViewColumn() id!: string;
  @ViewColumn({ name: 'delivery_id' }) deliveryId!: string;
  @ViewColumn({ name: 'webhook_id' }) webhookId!: string;
  @ViewColumn() attempt!: number;
  @ViewColumn({ name: 'event_type' }) eventType!: string;
  @ViewColumn({ name: 'event_id' }) eventId!: string;
  @ViewColumn() request!: WebhookLogRequest;
  @ViewColumn() outcome!: LogOutcome;
  @ViewColumn() status!: number | null;
  @ViewColumn({ name: 'duration_ms' }) durationMs!: number;
  @ViewColumn() error!: string | null;
  @ViewColumn({ name: 'response_excerpt' }) responseExcerpt!: string | null;
  @ViewColumn({ name: 'created_at' }) createdAt!: Date;
  @ViewColumn({ name: 'next_attempt_at' }) nextAttemptAt!: Date | null;
}
