import { ViewColumn, ViewEntity } from 'typeorm';

/** A merchant, as webhook-config may see it: only that it exists (transaction-api's view of its merchants). */
@ViewEntity({ schema: 'payments', name: 'merchant_for_webhook_config', synchronize: false })
export class MerchantRef {
  @ViewColumn() id!: string;
}
