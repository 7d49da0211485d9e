import { Module } from '@nestjs/common';
import { ApiKeyGuard } from '../auth/api-key.guard.js';
import { RateLimiter } from '../auth/rate-limit.service.js';
import { PlatformTokenGuard } from '#platform';
import { IntegrationKeyLookup } from './integration-key.lookup.js';
import { ReferenceChecker } from './reference.checker.js';
import { MerchantController } from './merchant.controller.js';
import { MerchantRepository } from './merchant.repository.js';
import { MerchantService } from './merchant.service.js';

/** Merchants, integrations and API keys; exports what the other features need to authenticate and check ids. */
@Module({
  controllers: [MerchantController],
  providers: [
    MerchantRepository,
    MerchantService,
    IntegrationKeyLookup,
    ReferenceChecker,
    ApiKeyGuard,
    RateLimiter,
    PlatformTokenGuard,
  ],
  exports: [ReferenceChecker, IntegrationKeyLookup, ApiKeyGuard, RateLimiter, PlatformTokenGuard],
})
export class MerchantModule {}
