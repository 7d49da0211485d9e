import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BackendUserController } from './backend-user.controller.js';
import { BackendUserEntity } from './backend-user.entity.js';
import { BackendUserRepository } from './backend-user.repository.js';
import { BackendUserService } from './backend-user.service.js';
import { MerchantRef } from './merchant-ref.entity.js';
import { PasswordHasher } from './password.hasher.js';
import { PlatformTokenGuard } from '#platform';

/** Backend users: the platform API that creates them, password hashing, and lookup for sign-in. */
@Module({
  imports: [TypeOrmModule.forFeature([BackendUserEntity, MerchantRef])],
  controllers: [BackendUserController],
  providers: [
    BackendUserRepository,
    BackendUserService,
    PlatformTokenGuard,
    { provide: PasswordHasher, useValue: new PasswordHasher() },
  ],
  exports: [BackendUserRepository, PasswordHasher],
})
export class AuthModule {}
