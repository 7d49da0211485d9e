import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '../auth/auth.module.js';
import { BackendSessionEntity } from './backend-session.entity.js';
import { LoginThrottleRepository } from './login-throttle.repository.js';
import { LoginThrottleService } from './login-throttle.service.js';
import { SessionController } from './session.controller.js';
import { SessionCookie } from './session.cookie.js';
import { SessionGuard } from './session.guard.js';
import { SessionRepository } from './session.repository.js';
import { SessionService } from './session.service.js';

/** Sign-in, sessions and CSRF; exports SessionGuard for every /api controller. */
@Module({
  imports: [TypeOrmModule.forFeature([BackendSessionEntity]), AuthModule],
  controllers: [SessionController],
  providers: [
    SessionRepository,
    SessionService,
    SessionCookie,
    SessionGuard,
    LoginThrottleRepository,
    LoginThrottleService,
  ],
  exports: [SessionGuard, SessionService, SessionCookie],
})
export class SessionModule {}
