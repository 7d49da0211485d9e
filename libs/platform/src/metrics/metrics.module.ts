import { Global, Module } from '@nestjs/common';
import { HttpMetricsHook } from './http-metrics.hook.js';
import { MetricsController } from './metrics.controller.js';
import { PlatformMetrics } from './platform.metrics.js';

/** `/metrics` with Node's and the HTTP metrics; apps inject {@link PlatformMetrics} to register their own. */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [PlatformMetrics, HttpMetricsHook],
  exports: [PlatformMetrics],
})
export class MetricsModule {}
