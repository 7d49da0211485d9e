import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { ApiVersion } from '#domain';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { CurrentMerchant, type MerchantPrincipal } from '../auth/merchant-principal.js';
import { ApiProblems, FieldErrorDoc, ProblemDoc } from '../common/problem.doc.js';
import { UuidParamPipe } from '../common/uuid-param.pipe.js';
import { ApiVersionPipe } from './api-version.pipe.js';
import { API_VERSION_DESCRIPTION, ListTransactionsQuery, PATH_PARAMETER_API_VERSIONS } from './transaction.dto.js';
import { TransactionPageDoc, TransactionV117Doc, TransactionV1Doc } from './transaction.doc.js';
import { TransactionReader } from './transaction.reader.js';

const VERSION_PARAM = {
  name: 'version',
  description: API_VERSION_DESCRIPTION,
  enum: PATH_PARAMETER_API_VERSIONS,
} as const;

/** The versions of the `{version}` parameter, e.g. `1.0–1.16` (the newest has paths of its own). */
const PATH_VERSIONS = `${PATH_PARAMETER_API_VERSIONS[0]}–${PATH_PARAMETER_API_VERSIONS.at(-1)}`;

@ApiTags('Merchant API: transactions')
@ApiBearerAuth('apiKey')
@ApiSecurity('apiKeyHeader')
@ApiExtraModels(ProblemDoc, FieldErrorDoc, TransactionV1Doc, TransactionV117Doc)
@ApiProblems([400, 401, 404, 429, 503])
@UseGuards(ApiKeyGuard)
@Controller('v:version/transactions')
export class TransactionMerchantController {
  constructor(private readonly reader: TransactionReader) {}

  @Get()
  @ApiOperation({
    summary: `List the merchant's transactions (API ${PATH_VERSIONS})`,
    description:
      'Newest first (createdAt, then uuid, descending), or with `order=updatedAt` oldest change first (updatedAt, then ' +
      'uuid, ascending). Keyset pagination: pass `nextCursor` as `cursor` for the next page, with the same order and ' +
      'filters; every page costs the same however deep it is. Filters combine with AND; `…From` bounds are inclusive, ' +
      '`…To` bounds exclusive. Unknown query parameters are refused.\n\n' +
      'Catching up after downtime: `updatedFrom=<last sync>&order=updatedAt`, following `nextCursor` until it is null, ' +
      'returns every transaction changed at or after that instant; one changed again during the walk may appear twice ' +
      '(keep the one with the newest `updatedAt`).',
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
    summary: `Retrieve one transaction (API ${PATH_VERSIONS})`,
    description:
      "A key sees every transaction of its merchant; another merchant's uuid answers 404 exactly like an unknown one.",
  })
  @ApiParam(VERSION_PARAM)
  @ApiParam({ name: 'uuid', format: 'uuid' })
  @ApiOkResponse({ type: TransactionV1Doc })
  get(
    @Param('version', ApiVersionPipe) version: ApiVersion,
    @Param('uuid', UuidParamPipe) uuid: string,
    @CurrentMerchant() merchant: MerchantPrincipal,
  ) {
    return this.reader.get(merchant.merchantId, uuid, version);
  }
}
