import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What a log entry's `request` shows about the event: `psp, type, uuid` for transactions, else the subject id. */
export interface DeliverySubject {
  psp?: string;
  type?: string;
  uuid: string;
}

/**
 * One (event, webhook) pair. Its id is the `webhook-id` header on every attempt. The body is rendered once,
 * so every repeat and every resend sends the same bytes (signed again with a new timestamp). A delivery's state is
 * its latest webhook_log row; the row itself changes only to count manual attempts (a test, resends) when they are
 * requested. `url` is the webhook's URL when the event was fanned out; every attempt goes to the webhook's current
 * URL.
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
  /** Manual attempts requested (rows from before this column: see the larger of it and the manual log entries). */
  @Column('int', { name: 'manual_attempts', default: 0 }) manualAttempts!: number;
  /** The attempt number the latest manual attempt took. */
  @Column('int', { name: 'last_manual_attempt', default: 0 }) lastManualAttempt!: number;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
