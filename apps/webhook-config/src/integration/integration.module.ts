import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IntegrationEntity } from '#persistence';
import { SessionModule } from '../session/session.module.js';
import { IntegrationController } from './integration.controller.js';
import { IntegrationRepository } from './integration.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([IntegrationEntity]), SessionModule],
  controllers: [IntegrationController],
  providers: [IntegrationRepository],
  exports: [IntegrationRepository],
})
export class IntegrationModule {}
