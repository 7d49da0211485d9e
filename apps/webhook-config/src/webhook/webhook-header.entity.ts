import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A custom header of a webhook (CONTRACT §5), in the order given (`position`). The value is stored only encrypted
 * (AES-256-GCM with SECRET_ENCRYPTION_KEY, bound to the webhook and the lowercase name: headerValueContext).
 */
@Entity('webhook_header')
export class WebhookHeaderEntity {
  @PrimaryColumn('uuid', { name: 'webhook_id' }) webhookId!: string;
  @PrimaryColumn('smallint') position!: number;
  @Column('text') name!: string;
  @Column('bytea') ciphertext!: Buffer;
}
