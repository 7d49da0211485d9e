import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { resourceId } from '../http/resource-id.pipe.js';
import { CurrentSession, type SessionContext } from '../session/session.context.js';
import { SessionGuard } from '../session/session.guard.js';
import { CreateWebhookDto } from './dtos/create-webhook.dto.js';
import { UpdateWebhookDto } from './dtos/update-webhook.dto.js';
import { WebhookService } from './webhook.service.js';
import type { WebhookView } from './webhook.view.js';

/** The signed-in merchant's webhooks (CONTRACT §6). */
@ApiTags('webhooks')
@UseGuards(SessionGuard)
@Controller('api/webhooks')
export class WebhookController {
  constructor(private readonly webhooks: WebhookService) {}

  @Get()
  async list(@CurrentSession() session: SessionContext): Promise<{ data: WebhookView[] }> {
    return { data: await this.webhooks.list(session.merchantId) };
  }

  @Post()
  @HttpCode(201)
  create(
    @CurrentSession() session: SessionContext,
    @Body() body: CreateWebhookDto,
  ): Promise<WebhookView & { secret: string }> {
    return this.webhooks.create(session.merchantId, body);
  }

  @Get(':id')
  get(@CurrentSession() session: SessionContext, @Param('id', resourceId('webhook')) id: string): Promise<WebhookView> {
    return this.webhooks.get(session.merchantId, id);
  }

  @Patch(':id')
  update(
    @CurrentSession() session: SessionContext,
    @Param('id', resourceId('webhook')) id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookView> {
    return this.webhooks.update(session.merchantId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  remove(@CurrentSession() session: SessionContext, @Param('id', resourceId('webhook')) id: string): Promise<void> {
    return this.webhooks.remove(session.merchantId, id);
  }
}
