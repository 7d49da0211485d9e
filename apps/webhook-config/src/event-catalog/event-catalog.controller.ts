import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { EventCatalogDoc } from './event-catalog.doc.js';
import { EventCatalogService } from './event-catalog.service.js';
import type { EventCatalog } from './event-catalog.view.js';

/** The event catalog: what each kind of event sends, in every payload version and content type (the "Events" page). */
@ApiTags('events')
@ApiSessionRoutes()
@ApiProblems([503])
@UseGuards(SessionGuard)
@Controller('api/event-types')
export class EventCatalogController {
  constructor(private readonly catalog: EventCatalogService) {}

  @Get()
  @ApiOperation({
    summary: 'Every event kind and type, each payload version with its JSON Schema and an example',
    description:
      'The schemas and examples are those of transaction-api’s OpenAPI `webhooks`. To receive an example at one of ' +
      'your webhooks, in its version and content type: `POST /api/webhooks/{id}/test` with `{"eventType": <kind>}`.',
  })
  @ApiOkResponse({ type: EventCatalogDoc })
  list(): EventCatalog {
    return this.catalog.list();
  }
}
