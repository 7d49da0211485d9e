import { Injectable } from '@nestjs/common';
import { EVENT_KIND_OPTIONS, EVENT_KINDS_WITHOUT_INTEGRATION } from '#domain';
import type { FieldError } from '#platform';
import { IntegrationRepository } from '../integration/integration.repository.js';
import { WebhookUrlPolicy } from './webhook-url.policy.js';
import { WebhookException, WebhookExceptionCode } from './webhook.exception.js';

const withoutIntegration = (kind: string) => (EVENT_KINDS_WITHOUT_INTEGRATION as readonly string[]).includes(kind);

/**
 * The checks a DTO cannot make alone: where the URL points (DNS), that a linked integration is one of this
 * merchant's, and that the settings as they will be saved can fire at all (payouts belong to no integration, so a
 * webhook linked to one and selecting only payouts would never receive anything). All problems are reported
 * together, each naming its field.
 */
@Injectable()
export class WebhookSettingsValidator {
  constructor(
    private readonly urls: WebhookUrlPolicy,
    private readonly integrations: IntegrationRepository,
  ) {}

  async check(
    merchantId: string,
    settings: { url?: string; integrationId?: string | null },
    /** The events and integration the webhook will have once saved (for an update: the current ones, changed). */
    saved: { events: readonly string[]; integrationId: string | null },
  ): Promise<void> {
    const errors: FieldError[] = [];
    if (settings.url !== undefined) {
      const problem = await this.urls.targetProblem(settings.url);
      if (problem) errors.push({ field: 'url', message: problem });
    }
    if (settings.integrationId && !(await this.integrations.belongsToMerchant(merchantId, settings.integrationId))) {
      errors.push({ field: 'integrationId', message: 'is not one of your integrations' });
    }
    if (saved.integrationId !== null && saved.events.length > 0 && saved.events.every(withoutIntegration)) {
      // "are only payouts, which …"
      const kinds = EVENT_KIND_OPTIONS.filter((option) => saved.events.includes(option.type))
        .map((option) => option.label.toLowerCase())
        .join(' and ');
      errors.push({
        field: 'events',
        message: `are only ${kinds}, which belong to no integration: link the webhook to all events, or add another`,
      });
    }
    if (errors.length > 0) {
      throw new WebhookException('The webhook settings are invalid.', WebhookExceptionCode.INVALID_SETTINGS, errors);
    }
  }
}
