import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  EVENT_KIND_OPTIONS,
  LATEST_WEBHOOK_VERSION,
  WEBHOOK_CONTENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERSIONS,
} from '#domain';
import { WebhookConfigConfig } from '../config/webhook-config.config.js';
import { ApiProblems } from '../http/problem.doc.js';
import { SessionGuard } from '../session/session.guard.js';
import { ApiSessionRoutes } from '../session/session.openapi.js';
import { WebhookOptionsDoc } from './webhook.doc.js';
import { ROTATION_GRACE_MS } from './webhook-secret.service.js';

/** The choices of each setting, so the UI never hard-codes what the domain defines. */
@ApiTags('webhooks')
@ApiSessionRoutes()
@ApiProblems([503])
@UseGuards(SessionGuard)
@Controller('api/webhook-options')
export class WebhookOptionsController {
  constructor(private readonly config: WebhookConfigConfig) {}

  @Get()
  @ApiOperation({ summary: 'The choices of each webhook setting' })
  @ApiOkResponse({ type: WebhookOptionsDoc })
  options() {
    return {
      versions: [...WEBHOOK_VERSIONS],
      latestVersion: LATEST_WEBHOOK_VERSION,
      eventTypes: [...WEBHOOK_EVENT_TYPES],
      events: EVENT_KIND_OPTIONS.map((option) => ({ ...option })),
      contentTypes: [...WEBHOOK_CONTENT_TYPES],
      rotationGraceHours: ROTATION_GRACE_MS / 3_600_000,
      // With retryOnError: this many repeats, the last this long after the first attempt.
      retry: {
        repeats: this.config.retryDelaysMs.length,
        withinMs: this.config.retryDelaysMs.reduce((sum, ms) => sum + ms, 0),
      },
      logRetentionMs: this.config.logRetentionMs,
    };
  }
}
