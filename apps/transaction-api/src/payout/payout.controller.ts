import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PlatformTokenGuard } from '#platform';
import { ApiProblems, FieldErrorDoc, ProblemDoc } from '../common/problem.doc.js';
import { CreatePayoutDto, PayoutDoc } from './payout.dto.js';
import { PayoutService } from './payout.service.js';

@ApiTags('Platform: payouts')
@ApiBearerAuth('platform')
@ApiExtraModels(ProblemDoc, FieldErrorDoc)
@ApiProblems([400, 401, 413, 415, 503])
@UseGuards(PlatformTokenGuard)
@Controller('internal/payouts')
export class PayoutController {
  constructor(private readonly payouts: PayoutService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Record a payout',
    description: 'Status `initialised`; emits `payout.created` (no integration).',
  })
  @ApiCreatedResponse({ type: PayoutDoc })
  create(@Body() body: CreatePayoutDto) {
    return this.payouts.create(body);
  }
}
