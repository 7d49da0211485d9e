import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../http/problem.doc.js';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { CreateWebhookDto } from './dtos/create-webhook.dto.js';
import { UpdateWebhookDto } from './dtos/update-webhook.dto.js';
import { CreatedWebhookDoc, WebhookDoc, WebhookListDoc } from './webhook.doc.js';
import { WebhookService } from './webhook.service.js';
import type { WebhookView } from './webhook.view.js';

/** The signed-in merchant's webhooks: list, create, read, change, delete; never another merchant's. */
@ApiTags('webhooks')
@ApiSessionRoutes()
@ApiProblems([503])
@UseGuards(SessionGuard)
@Controller('api/webhooks')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Get()
  @ApiOperation({ summary: "List the merchant's webhooks" })
  @ApiOkResponse({ type: WebhookListDoc })
  async list(@CurrentSession() session: SessionContext): Promise<{ data: WebhookView[] }> {
    return { data: await this.webhooks.list(session.merchantId) };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a webhook',
    description:
      'The answer is the webhook with its signing secret. Custom `headers` are sent with every request; their values ' +
      'are stored encrypted and shown back only as their last four characters (`valueLast4`).',
  })
  @ApiCreatedResponse({ type: CreatedWebhookDoc })
  @ApiProblems([400, 409, 413, 415], { 409: 'The merchant has 50 webhooks already.' })
  create(
    @CurrentSession() session: SessionContext,
    @Body() body: CreateWebhookDto,
  ): Promise<WebhookView & { secret: string }> {
    return this.webhooks.create(session.merchantId, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a webhook' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: WebhookDoc })
  @ApiProblems([404])
  get(@CurrentSession() session: SessionContext, @Param('id', resourceId('webhook')) id: string): Promise<WebhookView> {
    return this.webhooks.get(session.merchantId, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change a webhook',
    description:
      'Only the fields sent change. `headers`, when sent, replaces the whole list (`[]` removes every header); an ' +
      'entry without `value` keeps the value stored for that name (any letter case), so the list can be edited ' +
      'without knowing the values.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: WebhookDoc })
  @ApiProblems([400, 404, 413, 415])
  update(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookView> {
    return this.webhooks.update(session.merchantId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook', description: 'Its secrets, deliveries and log go with it.' })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems([404])
  remove(@CurrentSession() session: SessionContext, @Param('id', resourceId('webhook')) id: string): Promise<void> {
    return this.webhooks.remove(session.merchantId, id);
  }
}
