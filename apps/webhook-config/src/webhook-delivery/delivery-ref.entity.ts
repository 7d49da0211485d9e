import { ViewColumn, ViewEntity } from 'typeorm';

/**
 * A delivery, as webhook-config may see it: that it is still kept (the dispatcher removes deliveries older than
 * WEBHOOK_LOG_RETENTION, a day at a time), through the dispatcher's view of its deliveries.
 */
@ViewEntity({ schema: 'delivery', name: 'webhook_delivery_for_webhook_config', synchronize: false })
export class DeliveryRef {
  @ViewColumn() id!: string;
  @ViewColumn({ name: 'webhook_id' }) webhookId!: string;
  @ViewColumn({ name: 'created_at' }) createdAt!: Date;
}
