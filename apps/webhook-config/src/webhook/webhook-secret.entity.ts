import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A signing secret, encrypted at rest (AES-256-GCM with SECRET_ENCRYPTION_KEY, see SecretCipher).
 * The current secret has no expiry; a rotated one keeps signing until `expiresAt` (24 h after rotation).
 */
@Entity('webhook_secret')
export class WebhookSecretEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'webhook_id' }) webhookId!: string;
  @Column('bytea') ciphertext!: Buffer;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt!: Date | null;
}
