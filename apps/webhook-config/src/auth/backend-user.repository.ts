import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { BackendUserEntity } from './backend-user.entity.js';
import { MerchantRef } from './merchant-ref.entity.js';

@Injectable()
export class BackendUserRepository {
  constructor(
    @InjectRepository(BackendUserEntity) private readonly users: Repository<BackendUserEntity>,
    @InjectRepository(MerchantRef) private readonly merchants: Repository<MerchantRef>,
  ) {}

  merchantExists(merchantId: string): Promise<boolean> {
    return this.merchants.existsBy({ id: merchantId });
  }

  /**
   * Inserts the user unless the e-mail is taken; returns false when it is. ON CONFLICT instead of catching a
   * unique violation, so no failed statement (with the password hash among its parameters) is ever logged.
   */
  async insertIfEmailFree(
    user: Pick<BackendUserEntity, 'id' | 'merchantId' | 'email' | 'passwordHash'>,
  ): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .insert()
      .into(BackendUserEntity)
      .values(user)
      .orIgnore()
      .returning('id')
      .execute();
    return result.raw.length > 0;
  }

  findByEmail(email: string): Promise<BackendUserEntity | null> {
    return this.users.findOneBy({ email });
  }
}
