import { Module } from '@nestjs/common';
import { CommonModule } from '../common/common.module.js';
import { WebhookModule } from '../webhook/webhook.module.js';
import { WebhookHealthMetrics } from './webhook-health.metrics.js';
import { WebhookHealthMonitor } from './webhook-health.monitor.js';
import { WebhookHealthRepository } from './webhook-health.repository.js';

/**
 * Each webhook's health (delivery.webhook_health, webhook_health_hour): the repository that records the attempts
 * in the log writer's transaction, the monitor that reports failing webhooks to webhook-config, and their gauges.
 */
@Module({
  imports: [CommonModule, WebhookModule],
  providers: [WebhookHealthRepository, WebhookHealthMonitor, WebhookHealthMetrics],
  exports: [WebhookHealthRepository, WebhookHealthMonitor],
})
export class WebhookHealthModule {}
