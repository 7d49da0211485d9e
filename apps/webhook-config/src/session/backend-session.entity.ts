import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A signed-in browser. Only the SHA-256 of the cookie token is stored. */
@Entity('backend_session')
export class BackendSessionEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('bytea', { name: 'token_hash' }) tokenHash!: Buffer;
  @Column('uuid', { name: 'user_id' }) userId!: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
  @Column('timestamptz', { name: 'last_seen_at', default: () => 'now()' }) lastSeenAt!: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt!: Date;
}
