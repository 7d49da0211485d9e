import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { IntegrationListDoc } from './integration.doc.js';
import { IntegrationRepository, type IntegrationView } from './integration.repository.js';

/** The signed-in merchant's integrations, for "Link to integration". */
@ApiTags('integrations')
@ApiSessionRoutes()
@ApiProblems([503])
@UseGuards(SessionGuard)
@Controller('api/integrations')
export class IntegrationController {
  constructor(private readonly integrations: IntegrationRepository) {}

  @Get()
  @ApiOperation({ summary: "List the merchant's integrations" })
  @ApiOkResponse({ type: IntegrationListDoc })
  async list(@CurrentSession() session: SessionContext): Promise<{ data: IntegrationView[] }> {
    return { data: await this.integrations.listForMerchant(session.merchantId) };
  }
}
