import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The `request` of a log entry (CONTRACT §5). */
export interface WebhookLogRequest {
  url: string;
  contentType: string;
  version: string;
  psp: string | null;
  type: string | null;
  uuid: string;
}

/** One delivery attempt. `status` is the HTTP status, 0 when no complete response arrived in time. */
@Entity('webhook_log')
export class WebhookLogEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'delivery_id' }) deliveryId!: string;
  @Column('uuid', { name: 'webhook_id' }) webhookId!: string;
  @Column('integer') attempt!: number;
  @Column('text', { name: 'event_type' }) eventType!: string;
  @Column('uuid', { name: 'event_id' }) eventId!: string;
  @Column('jsonb') request!: WebhookLogRequest;
  @Column('integer') status!: number;
  @Column('integer', { name: 'duration_ms' }) durationMs!: number;
  @Column('text', { nullable: true }) error!: string | null;
  @Column('text', { name: 'response_excerpt', nullable: true }) responseExcerpt!: string | null;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true }) nextAttemptAt!: Date | null;
}
