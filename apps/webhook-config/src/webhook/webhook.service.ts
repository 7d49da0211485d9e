import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { LATEST_WEBHOOK_VERSION, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '#domain';
import type { CreateWebhookDto } from './dtos/create-webhook.dto.js';
import type { UpdateWebhookDto } from './dtos/update-webhook.dto.js';
import { OperationalEventOutbox, type OperationalEventType } from '../operational-event/operational-event.outbox.js';
import { OperationalEventRelay } from '../operational-event/operational-event.relay.js';
import { WebhookChangePublisher } from './webhook-change.publisher.js';
import { WebhookHeaderService } from './webhook-header.service.js';
import { WebhookHealthRepository } from './webhook-health.repository.js';
import { webhookNotFound, WebhookException, WebhookExceptionCode } from './webhook.exception.js';
import { WebhookLookup } from './webhook.lookup.js';
import { WebhookRepository, type WebhookSettings } from './webhook.repository.js';
import { WebhookSecretService } from './webhook-secret.service.js';
import { WebhookSettingsValidator } from './webhook-settings.validator.js';
import { toWebhookView, type WebhookView } from './webhook.view.js';
import type { WebhookEntity } from './webhook.entity.js';

/** A merchant may configure this many webhooks. */
export const MAX_WEBHOOKS_PER_MERCHANT = 50;

/** Events in the contract's order, each once. */
const canonicalEvents = (events: WebhookEventType[]): WebhookEventType[] =>
  WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type));

/** Webhook settings of the signed-in merchant. */
@Injectable()
export class WebhookService {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly lookup: WebhookLookup,
    private readonly validator: WebhookSettingsValidator,
    private readonly secrets: WebhookSecretService,
    private readonly changes: WebhookChangePublisher,
    private readonly health: WebhookHealthRepository,
    private readonly headers: WebhookHeaderService,
    private readonly events: OperationalEventOutbox,
    private readonly relay: OperationalEventRelay,
  ) {}

  async list(merchantId: string): Promise<WebhookView[]> {
    const webhooks = await this.webhooks.listForMerchant(merchantId);
    const ids = webhooks.map((webhook) => webhook.id);
    const [health, headers] = await Promise.all([this.health.of(ids), this.headers.viewsOf(ids)]);
    return webhooks.map((webhook) => toWebhookView(webhook, health.get(webhook.id), headers.get(webhook.id)));
  }

  async get(merchantId: string, id: string): Promise<WebhookView> {
    return this.view(await this.lookup.require(merchantId, id));
  }

  private async view(webhook: WebhookEntity): Promise<WebhookView> {
    const [health, headers] = await Promise.all([this.health.of([webhook.id]), this.headers.viewsOf([webhook.id])]);
    return toWebhookView(webhook, health.get(webhook.id), headers.get(webhook.id));
  }

  /** Creates the webhook with its secret; the answer is the only one (besides reveal) that shows the secret. */
  async create(merchantId: string, input: CreateWebhookDto): Promise<WebhookView & { secret: string }> {
    await this.validator.check(merchantId, input, { events: input.events, integrationId: input.integrationId ?? null });
    if ((await this.webhooks.countForMerchant(merchantId)) >= MAX_WEBHOOKS_PER_MERCHANT) {
      throw new WebhookException(
        `You already have ${MAX_WEBHOOKS_PER_MERCHANT} webhooks, the most allowed. Delete one first.`,
        WebhookExceptionCode.LIMIT_REACHED,
      );
    }
    const id = randomUUID();
    const settings: WebhookSettings = {
      name: input.name,
      url: input.url,
      contentType: input.contentType ?? 'json',
      version: input.version ?? LATEST_WEBHOOK_VERSION,
      retryOnError: input.retryOnError ?? true,
      events: canonicalEvents(input.events),
      integrationId: input.integrationId ?? null,
      enabled: input.enabled ?? true,
      disabledReason: input.enabled === false ? 'manual' : null,
      maxPerSecond: input.maxPerSecond ?? null,
      skipSupersededRepeats: input.skipSupersededRepeats ?? true,
    };
    const secret = this.secrets.issue(id);
    const headers = this.headers.seal(id, input.headers ?? []);
    const webhook = await this.webhooks.insertWithSecret({ id, merchantId, ...settings }, secret.row, headers);
    await this.changes.changed(merchantId, id);
    const shown = headers.map((header) => this.headers.view(id, header));
    return { ...toWebhookView(webhook, undefined, shown), secret: secret.plaintext };
  }

  async update(merchantId: string, id: string, input: UpdateWebhookDto): Promise<WebhookView> {
    const current = await this.lookup.require(merchantId, id);
    await this.validator.check(merchantId, input, {
      events: input.events ?? current.events,
      integrationId: input.integrationId === undefined ? current.integrationId : input.integrationId,
    });
    const changes: Partial<WebhookSettings & { enabledAt: Date }> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.url !== undefined) changes.url = input.url;
    if (input.contentType !== undefined) changes.contentType = input.contentType;
    if (input.version !== undefined) changes.version = input.version;
    if (input.retryOnError !== undefined) changes.retryOnError = input.retryOnError;
    if (input.events !== undefined) changes.events = canonicalEvents(input.events);
    if (input.integrationId !== undefined) changes.integrationId = input.integrationId;
    if (input.maxPerSecond !== undefined) changes.maxPerSecond = input.maxPerSecond;
    if (input.skipSupersededRepeats !== undefined) changes.skipSupersededRepeats = input.skipSupersededRepeats;
    // Disabling keeps the reason of a webhook that is already disabled (the platform's `failing` stays visible);
    // enabling clears it, and a disabled webhook enabled again starts a new failure episode from now (enabledAt): the
    // platform does not disable it again for failures before, and counts WEBHOOK_DISABLE_AFTER from now.
    if (input.enabled === true) Object.assign(changes, { enabled: true, disabledReason: null });
    if (input.enabled === true && !current.enabled) changes.enabledAt = new Date();
    if (input.enabled === false && current.enabled)
      Object.assign(changes, { enabled: false, disabledReason: 'manual' });
    // The list replaces the stored one; an entry without a value keeps the stored value of its name.
    const headers = input.headers && (await this.headers.resolve(id, input.headers));
    // Enabling a disabled webhook, or disabling an enabled one, is an operational event (`webhook.enabled`,
    // `webhook.disabled` with reason `manual`), written with the change.
    const event: OperationalEventType | null =
      input.enabled === true && !current.enabled
        ? 'webhook.enabled'
        : input.enabled === false && current.enabled
          ? 'webhook.disabled'
          : null;
    const webhook = await this.webhooks.update(
      merchantId,
      id,
      changes,
      headers,
      event ? (manager) => this.events.record(manager, event, { merchantId, webhookId: id }) : undefined,
    );
    if (!webhook) throw webhookNotFound();
    await this.changes.changed(merchantId, id);
    if (event) this.relay.nudge(); // after the announcement: dispatchers know of the change before its event
    return this.view(webhook);
  }

  async remove(merchantId: string, id: string): Promise<void> {
    if (!(await this.webhooks.delete(merchantId, id))) throw webhookNotFound();
    await this.changes.changed(merchantId, id);
  }
}
