import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { WebhookContentType, WebhookDisabledReason } from '#domain';
import type { EventCategory } from '#messaging';

/** Why a webhook is disabled: defined once, in `#domain` (an operational event reports it too). */
export { WEBHOOK_DISABLED_REASONS, type WebhookDisabledReason } from '#domain';

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
  @Column('text', { array: true }) events!: EventCategory[];
  /** Disabled: nothing is sent; each matching event is logged as skipped (CONTRACT §5). */
  @Column('boolean', { default: true }) enabled!: boolean;
  /** null while enabled. */
  @Column('text', { name: 'disabled_reason', nullable: true }) disabledReason!: WebhookDisabledReason | null;
  /** When the merchant last enabled it after it was disabled; null: enabled since it was created. */
  @Column('timestamptz', { name: 'enabled_at', nullable: true }) enabledAt!: Date | null;
  /** At most this many requests a second reach the URL, over all dispatchers; null: no limit. */
  @Column('integer', { name: 'max_per_second', nullable: true }) maxPerSecond!: number | null;
  /** Repeats of a subject's older events are not attempted once a newer one was delivered. */
  @Column('boolean', { name: 'skip_superseded_repeats', default: true }) skipSupersededRepeats!: boolean;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt!: Date;
}
