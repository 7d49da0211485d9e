import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { IntegrationRepository, type IntegrationView } from './integration.repository.js';

/** The signed-in merchant's integrations, for "Link to integration". */
@ApiTags('integrations')
@UseGuards(SessionGuard)
@Controller('api/integrations')
export class IntegrationController {
  constructor(private readonly integrations: IntegrationRepository) {}

  @Get()
  async list(@CurrentSession() session: SessionContext): Promise<{ data: IntegrationView[] }> {
    return { data: await this.integrations.listForMerchant(session.merchantId) };
  }
}
