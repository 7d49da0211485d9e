import { Module } from '@nestjs/common';
import { SessionModule } from '../session/session.module.js';
import { EventCatalogController } from './event-catalog.controller.js';
import { EventCatalogService } from './event-catalog.service.js';

@Module({
  imports: [SessionModule],
  controllers: [EventCatalogController],
  providers: [EventCatalogService],
})
export class EventCatalogModule {}
