import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiSecurity,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { API_VERSIONS, type ApiVersion } from '#domain';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { CurrentMerchant, type MerchantPrincipal } from '../auth/merchant-principal.js';
import { ApiProblems, FieldErrorDoc, ProblemDoc } from '../common/problem.doc.js';
import { UuidParamPipe } from '../common/uuid.js';
import { ApiVersionPipe } from './api-version.pipe.js';
import {
  API_VERSION_DESCRIPTION,
  ListTransactionsQuery,
  TransactionPageDoc,
  TransactionV117Doc,
  TransactionV1Doc,
} from './transaction.dto.js';
import { TransactionReader } from './transaction.reader.js';

const VERSION_PARAM = { name: 'version', description: API_VERSION_DESCRIPTION, enum: [...API_VERSIONS] } as const;

@ApiTags('Merchant API: transactions')
@ApiBearerAuth('apiKey')
@ApiSecurity('apiKeyHeader')
@ApiExtraModels(ProblemDoc, FieldErrorDoc, TransactionV1Doc, TransactionV117Doc)
@ApiProblems([400, 401, 404, 503])
@UseGuards(ApiKeyGuard)
@Controller('v:version/transactions')
export class TransactionMerchantController {
  constructor(private readonly reader: TransactionReader) {}

  @Get()
  @ApiOperation({
    summary: "List the merchant's transactions",
    description:
      'Newest first (createdAt, then uuid, descending). Keyset pagination: pass `nextCursor` as `cursor` for the next ' +
      'page; every page costs the same however deep it is. Filters combine with AND. Unknown query parameters are refused.',
  })
  @ApiParam(VERSION_PARAM)
  @ApiOkResponse({ type: TransactionPageDoc })
  list(
    @Param('version', ApiVersionPipe) version: ApiVersion,
    @Query() query: ListTransactionsQuery,
    @CurrentMerchant() merchant: MerchantPrincipal,
  ) {
    return this.reader.list(merchant.merchantId, query, version);
  }

  @Get(':uuid')
  @ApiOperation({
    summary: 'Retrieve one transaction',
    description:
      "A key sees every transaction of its merchant; another merchant's uuid answers 404 exactly like an unknown one.",
  })
  @ApiParam(VERSION_PARAM)
  @ApiParam({ name: 'uuid', format: 'uuid' })
  @ApiOkResponse({
    description: '1.0–1.16: TransactionV1Doc; 1.17: TransactionV117Doc (with `3dsecure`).',
    schema: { oneOf: [{ $ref: getSchemaPath(TransactionV117Doc) }, { $ref: getSchemaPath(TransactionV1Doc) }] },
  })
  get(
    @Param('version', ApiVersionPipe) version: ApiVersion,
    @Param('uuid', UuidParamPipe) uuid: string,
    @CurrentMerchant() merchant: MerchantPrincipal,
  ) {
    return this.reader.get(merchant.merchantId, uuid, version);
  }
}
