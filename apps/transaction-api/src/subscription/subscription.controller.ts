import { Body, Controller, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PlatformTokenGuard } from '#platform';
import { ApiProblems, FieldErrorDoc, ProblemDoc } from '../common/problem.doc.js';
import { UuidParamPipe } from '../common/uuid-param.pipe.js';
import { CreateSubscriptionDto, SubscriptionDoc, SubscriptionEventDto } from './subscription.dto.js';
import { SubscriptionService } from './subscription.service.js';

@ApiTags('Platform: subscriptions')
@ApiBearerAuth('platform')
@ApiExtraModels(ProblemDoc, FieldErrorDoc)
@ApiProblems([400, 401, 409, 413, 415, 503])
@UseGuards(PlatformTokenGuard)
@Controller('internal/subscriptions')
export class SubscriptionController {
  constructor(private readonly subscriptions: SubscriptionService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Record a new subscription',
    description:
      'Status `active`; emits `subscription.created`. With an `id` already recorded: the same data answers 200 with ' +
      'the stored subscription and no event, different data 409.',
  })
  @ApiCreatedResponse({ type: SubscriptionDoc, description: 'Recorded.' })
  @ApiOkResponse({
    type: SubscriptionDoc,
    description: 'This id was recorded before with the same data (no new event).',
  })
  async create(@Body() body: CreateSubscriptionDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const { subscription, created } = await this.subscriptions.create(body);
    if (!created) void reply.status(200);
    return subscription;
  }

  @Post(':id/events')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Record a subscription event',
    description:
      'Emits `subscription.<event>`. renewed: active|past_due → active; payment_failed: active|past_due → past_due; ' +
      'cancelled: active|past_due → cancelled; ended: active|past_due|cancelled → ended (final). cancelled or ended ' +
      'again on a subscription already in that state: 200, unchanged, no event (a retry). Anything else: 409.',
  })
  @ApiParam({ name: 'id', format: 'uuid' })
  @ApiOkResponse({ type: SubscriptionDoc })
  @ApiProblems([404, 409], {
    404: 'No subscription has this id.',
    409: "The event is not allowed in the subscription's status.",
  })
  recordEvent(@Param('id', UuidParamPipe) id: string, @Body() body: SubscriptionEventDto) {
    return this.subscriptions.recordEvent(id, body);
  }
}
