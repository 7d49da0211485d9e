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
import { LATEST_API_VERSION } from '#domain';
import { PlatformTokenGuard } from '#platform';
import { ApiProblems, FieldErrorDoc, ProblemDoc } from '../common/problem.doc.js';
import { UuidParamPipe } from '../common/uuid-param.pipe.js';
import { TransactionV117Doc } from './transaction.doc.js';
import { ChangeTransactionStatusDto, CreateTransactionDto } from './transaction.dto.js';
import { TransactionService } from './transaction.service.js';
import { describeStatusMoves } from './transaction.status-machine.js';

@ApiTags('Platform: transactions')
@ApiBearerAuth('platform')
@ApiExtraModels(ProblemDoc, FieldErrorDoc)
@ApiProblems([400, 401, 413, 415, 503])
@UseGuards(PlatformTokenGuard)
@Controller('internal/transactions')
export class TransactionPlatformController {
  constructor(private readonly transactions: TransactionService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Record a processed payment',
    description:
      'Stores the transaction and emits `transaction.created` in the same database transaction. `3dsecure` is resolved ' +
      'from `authentication` (e-commerce card payments only, see `3dsecure`); the raw authentication is never stored, ' +
      'logged or returned. Idempotent on ' +
      '`uuid`: the same uuid with the same data again answers 200 with the stored transaction (its current status) and ' +
      'emits nothing; the same uuid with different data answers 409.',
  })
  @ApiCreatedResponse({ type: TransactionV117Doc, description: `Recorded (API ${LATEST_API_VERSION} shape).` })
  @ApiOkResponse({
    type: TransactionV117Doc,
    description: 'This uuid was recorded before with the same data; nothing changed.',
  })
  @ApiProblems([409], {
    409: 'The uuid is already used by a transaction with different data.',
    400: 'Invalid field, or a merchantId/integrationId that does not exist or does not belong together.',
  })
  async record(@Body() body: CreateTransactionDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const { transaction, created } = await this.transactions.record(body);
    if (!created) void reply.status(200);
    return transaction;
  }

  @Post(':uuid/status')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Change the status of a transaction',
    description:
      'Moves the transaction through the state machine below and emits `transaction.status_changed` in the same ' +
      'database transaction. The same status again answers 200 and emits nothing; a move not listed answers 409.\n\n' +
      describeStatusMoves(),
  })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  @ApiOkResponse({ type: TransactionV117Doc })
  @ApiProblems([404, 409], {
    404: 'No transaction has this uuid.',
    409: 'The state machine does not allow this move (type urn:problem:status-transition).',
  })
  changeStatus(@Param('uuid', UuidParamPipe) uuid: string, @Body() body: ChangeTransactionStatusDto) {
    return this.transactions.changeStatus(uuid, body);
  }
}
