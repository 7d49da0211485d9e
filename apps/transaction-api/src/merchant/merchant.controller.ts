import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { PlatformTokenGuard } from '#platform';
import { ApiProblems } from '../common/problem.doc.js';
import { UuidParamPipe } from '../common/uuid-param.pipe.js';
import { CreateIntegrationDto, CreateMerchantDto, IntegrationResponse, MerchantResponse } from './merchant.dto.js';
import { MerchantService } from './merchant.service.js';

@ApiTags('Platform: merchants')
@ApiBearerAuth('platform')
@ApiProblems([400, 401, 413, 415, 503])
@UseGuards(PlatformTokenGuard)
@Controller('internal/merchants')
export class MerchantController {
  constructor(private readonly merchants: MerchantService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a merchant' })
  @ApiCreatedResponse({ type: MerchantResponse })
  create(@Body() body: CreateMerchantDto): Promise<MerchantResponse> {
    return this.merchants.createMerchant(body.name);
  }

  @Post(':merchantId/integrations')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an integration with its API key',
    description:
      'The API key is in this response only; the service keeps a SHA-256 hash of it and a short readable prefix.',
  })
  @ApiParam({ name: 'merchantId', format: 'uuid' })
  @ApiCreatedResponse({ type: IntegrationResponse })
  @ApiProblems([404], { 404: 'No merchant has this id.' })
  createIntegration(
    @Param('merchantId', UuidParamPipe) merchantId: string,
    @Body() body: CreateIntegrationDto,
  ): Promise<IntegrationResponse> {
    return this.merchants.createIntegration(merchantId, body.name);
  }
}
