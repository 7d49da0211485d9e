import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WebhookContentType = 'json' | 'php-post';
export type WebhookEventCategory = 'transaction' | 'subscription' | 'payout';

/** A merchant's webhook. `url` is stored exactly as the merchant gave it. */
@Entity('webhook')
export class WebhookEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId!: string;
  /** null: all events of the merchant; otherwise only events of this integration (payouts never match). */
  @Column('uuid', { name: 'integration_id', nullable: true }) integrationId!: string | null;
  @Column('text') name!: string;
  @Column('text') url!: string;
  @Column('text', { name: 'content_type' }) contentType!: WebhookContentType;
  @Column('text') version!: string;
  @Column('boolean', { name: 'retry_on_error' }) retryOnError!: boolean;
  @Column('text', { array: true }) events!: WebhookEventCategory[];
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
