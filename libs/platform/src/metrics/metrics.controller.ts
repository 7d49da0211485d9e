import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Registry } from 'prom-client';
import { PlatformMetrics } from './platform.metrics.js';

/** `/metrics`: the process's metrics in Prometheus' text format (values read at scrape time are read now). */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: PlatformMetrics) {}

  @Get()
  @Header('content-type', Registry.PROMETHEUS_CONTENT_TYPE)
  scrape(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
