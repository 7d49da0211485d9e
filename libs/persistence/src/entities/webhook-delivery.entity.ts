import { Column, Entity, PrimaryColumn } from 'typeorm';

export type DeliveryState = 'pending' | 'retrying' | 'succeeded' | 'failed';

/** What a log entry's `request` shows about the event: `psp, type, uuid` for transactions, else the subject id. */
export interface DeliverySubject {
  psp?: string;
  type?: string;
  uuid: string;
}

/**
 * One (event, webhook) pair. Its id is the `webhook-id` header on every attempt. The body is rendered once,
 * so every repeat and every resend sends the same bytes (signed again with a new timestamp).
 */
@Entity('webhook_delivery')
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'webhook_id' }) webhookId!: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId!: string;
  @Column('uuid', { name: 'event_id' }) eventId!: string;
  @Column('text', { name: 'event_type' }) eventType!: string;
  @Column('jsonb') subject!: DeliverySubject;
  @Column('text') url!: string;
  @Column('text', { name: 'content_type' }) contentType!: string;
  @Column('text') version!: string;
  @Column('boolean', { name: 'retry_on_error' }) retryOnError!: boolean;
  @Column('bytea') body!: Buffer;
  @Column('text') state!: DeliveryState;
  @Column('integer') attempts!: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
