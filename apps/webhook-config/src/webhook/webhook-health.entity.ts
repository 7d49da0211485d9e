import { ViewColumn, ViewEntity } from 'typeorm';

/**
 * How a webhook's attempts went, as the dispatcher counts them (migration WebhookLifecycle), read by webhook-config
 * through its view: the latest success, since when the attempts fail (null while the latest succeeded), and the
 * attempts and failures of the last 24 hours. No row: no attempt yet.
 */
@ViewEntity({ schema: 'delivery', name: 'webhook_health_for_webhook_config', synchronize: false })
export class WebhookHealthEntity {
  @ViewColumn({ name: 'webhook_id' }) webhookId!: string;
  @ViewColumn({ name: 'last_success_at' }) lastSuccessAt!: Date | null;
  @ViewColumn({ name: 'failing_since' }) failingSince!: Date | null;
  @ViewColumn({ name: 'attempts_24h' }) attempts24h!: number;
  @ViewColumn({ name: 'failures_24h' }) failures24h!: number;
}
