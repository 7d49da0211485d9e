import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A merchant backend login. `email` is stored lower-case; `passwordHash` is `scrypt$N$r$p$salt$key`. */
@Entity('backend_user')
export class BackendUserEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { name: 'merchant_id' }) merchantId!: string;
  @Column('text') email!: string;
  @Column('text', { name: 'password_hash' }) passwordHash!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
