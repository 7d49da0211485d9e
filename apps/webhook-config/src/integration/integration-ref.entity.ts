import { ViewColumn, ViewEntity } from 'typeorm';

/** An integration, as webhook-config may see it: never its API key's hash or prefix (transaction-api's view). */
@ViewEntity({ schema: 'payments', name: 'integration_for_webhook_config', synchronize: false })
export class IntegrationRef {
  @ViewColumn() id!: string;
  @ViewColumn({ name: 'merchant_id' }) merchantId!: string;
  @ViewColumn() name!: string;
  @ViewColumn({ name: 'created_at' }) createdAt!: Date;
}
