import { Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { PlatformMetrics } from './platform.metrics.js';

/**
 * Times every answered request (routed or not, errors included) in a Fastify onResponse hook: after the response is
 * sent, so it adds nothing to the answer's latency. Added before the server is ready, so it covers every route.
 */
@Injectable()
export class HttpMetricsHook implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: PlatformMetrics,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      this.metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }
}
