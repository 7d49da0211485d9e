import { ViewColumn, ViewEntity } from 'typeorm';

/** A recover and its progress, as webhook-config may see it: through the dispatcher's view of its recovers. */
@ViewEntity({ schema: 'delivery', name: 'webhook_recover_for_webhook_config', synchronize: false })
export class RecoverRef {
  @ViewColumn() id!: string;
  @ViewColumn({ name: 'webhook_id' }) webhookId!: string;
  @ViewColumn() since!: Date;
  @ViewColumn() state!: 'running' | 'finished' | 'cancelled';
  @ViewColumn() total!: number;
  @ViewColumn() sent!: number;
  @ViewColumn({ name: 'started_at' }) startedAt!: Date;
  @ViewColumn({ name: 'finished_at' }) finishedAt!: Date | null;
  @ViewColumn({ name: 'cancel_reason' }) cancelReason!: 'requested' | 'disabled' | null;
}
