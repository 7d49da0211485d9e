import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionModule } from '../session/session.module.js';
import { IntegrationRef } from './integration-ref.entity.js';
import { IntegrationController } from './integration.controller.js';
import { IntegrationRepository } from './integration.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([IntegrationRef]), SessionModule],
  controllers: [IntegrationController],
  providers: [IntegrationRepository],
  exports: [IntegrationRepository],
})
export class IntegrationModule {}
