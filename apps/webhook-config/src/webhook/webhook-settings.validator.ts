import { Injectable } from '@nestjs/common';
import { type FieldError, ProblemException } from '#platform';
import { IntegrationRepository } from '../integration/integration.repository.js';
import { WebhookUrlPolicy } from './webhook-url.policy.js';

/**
 * The checks a DTO cannot make alone: where the URL points (DNS), and that a linked integration is one of
 * this merchant's. All problems are reported together, each naming its field.
 */
@Injectable()
export class WebhookSettingsValidator {
  constructor(
    private readonly urls: WebhookUrlPolicy,
    private readonly integrations: IntegrationRepository,
  ) {}

  async check(merchantId: string, settings: { url?: string; integrationId?: string | null }): Promise<void> {
    const errors: FieldError[] = [];
    if (settings.url !== undefined) {
      const problem = await this.urls.targetProblem(settings.url);
      if (problem) errors.push({ field: 'url', message: problem });
    }
    if (settings.integrationId && !(await this.integrations.belongsToMerchant(merchantId, settings.integrationId))) {
      errors.push({ field: 'integrationId', message: 'is not one of your integrations' });
    }
    if (errors.length > 0) throw ProblemException.validation(errors);
  }
}
