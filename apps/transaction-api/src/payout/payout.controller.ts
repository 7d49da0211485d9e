import { Body, Controller, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PlatformTokenGuard } from '#platform';
import { ApiProblems, FieldErrorDoc, ProblemDoc } from '../common/problem.doc.js';
import { CreatePayoutDto, PayoutDoc } from './payout.dto.js';
import { PayoutService } from './payout.service.js';

@ApiTags('Platform: payouts')
@ApiBearerAuth('platform')
@ApiExtraModels(ProblemDoc, FieldErrorDoc)
@ApiProblems([400, 401, 409, 413, 415, 503])
@UseGuards(PlatformTokenGuard)
@Controller('internal/payouts')
export class PayoutController {
  constructor(private readonly payouts: PayoutService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Record a payout',
    description:
      'Status `initialised`; emits `payout.created` (no integration). With an `id` already recorded: the same data ' +
      'answers 200 with the stored payout and no event, different data 409.',
  })
  @ApiCreatedResponse({ type: PayoutDoc, description: 'Recorded.' })
  @ApiOkResponse({ type: PayoutDoc, description: 'This id was recorded before with the same data (no new event).' })
  async create(@Body() body: CreatePayoutDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const { payout, created } = await this.payouts.create(body);
    if (!created) void reply.status(200);
    return payout;
  }
}
