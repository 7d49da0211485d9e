import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An integration of a merchant: one API key, stored as its SHA-256 hash; only a short prefix is kept readable. */
@Entity('integration')
export class IntegrationEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId!: string;
  @Column('text') name!: string;
  @Column('bytea', { name: 'api_key_hash' }) apiKeyHash!: Buffer;
  @Column('text', { name: 'api_key_prefix' }) apiKeyPrefix!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
