import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { LATEST_API_VERSION } from '#domain';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { CurrentMerchant, type MerchantPrincipal } from '../auth/merchant-principal.js';
import { ApiProblems } from '../common/problem.doc.js';
import { UuidParamPipe } from '../common/uuid-param.pipe.js';
import { TransactionPageV117Doc, TransactionV117Doc } from './transaction.doc.js';
import { ListTransactionsQuery } from './transaction.dto.js';
import { TransactionReader } from './transaction.reader.js';

/**
 * The merchant read API in its latest version, `/v<LATEST_API_VERSION>/…`: TransactionMerchantController's routes with
 * the version in the path, so that the OpenAPI document gives each path one shape and a client generated from it
 * types a latest-version answer with `3dsecure`. Fastify's router takes these static paths before the parametric `/v{version}/…` ones.
 */
@ApiTags('Merchant API: transactions')
@ApiBearerAuth('apiKey')
@ApiSecurity('apiKeyHeader')
@ApiProblems([400, 401, 404, 429, 503])
@UseGuards(ApiKeyGuard)
@Controller(`v${LATEST_API_VERSION}/transactions`)
export class TransactionLatestController {
  constructor(private readonly reader: TransactionReader) {}

  @Get()
  @ApiOperation({
    summary: `List the merchant's transactions (API ${LATEST_API_VERSION})`,
    description: `\`GET /v{version}/transactions\` in version ${LATEST_API_VERSION}: every object has \`3dsecure\`.`,
  })
  @ApiOkResponse({ type: TransactionPageV117Doc })
  list(@Query() query: ListTransactionsQuery, @CurrentMerchant() merchant: MerchantPrincipal) {
    return this.reader.list(merchant.merchantId, query, LATEST_API_VERSION);
  }

  @Get(':uuid')
  @ApiOperation({
    summary: `Retrieve one transaction (API ${LATEST_API_VERSION})`,
    description:
      `\`GET /v{version}/transactions/{uuid}\` in version ${LATEST_API_VERSION}: the object has \`3dsecure\`. ` +
      "Another merchant's uuid answers 404 exactly like an unknown one.",
  })
  @ApiParam({ name: 'uuid', format: 'uuid' })
  @ApiOkResponse({ type: TransactionV117Doc })
  get(@Param('uuid', UuidParamPipe) uuid: string, @CurrentMerchant() merchant: MerchantPrincipal) {
    return this.reader.get(merchant.merchantId, uuid, LATEST_API_VERSION);
  }
}
