import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('merchant')
export class MerchantEntity {
  @PrimaryColumn('uuid') id!: string;
  @Column('text') name!: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt!: Date;
}
