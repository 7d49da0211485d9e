import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { headerValueContext, maskedHeaderValue } from '#domain';
import { SecretCipher } from '#platform';
import { WebhookHeaderEntity } from './webhook-header.entity.js';
import { WebhookException, WebhookExceptionCode } from './webhook.exception.js';

/** A custom header as the API shows it: the value only as its last four characters (none for 4 or fewer). */
export interface WebhookHeaderView {
  name: string;
  valueLast4: string;
}

/** A header to store: its name and its value, encrypted. */
export type SealedHeader = Pick<WebhookHeaderEntity, 'name' | 'ciphertext'>;

/**
 * A webhook's custom headers (CONTRACT §5): values are encrypted here (AES-256-GCM with SECRET_ENCRYPTION_KEY, bound
 * to the webhook and the lowercase name) and decrypted only to show their last four characters. No value is ever put
 * in a message, a log line or an error.
 */
@Injectable()
export class WebhookHeaderService {
  constructor(
    private readonly cipher: SecretCipher,
    @InjectRepository(WebhookHeaderEntity) private readonly headers: Repository<WebhookHeaderEntity>,
  ) {}

  /** The headers to store for a new webhook, in the order given. */
  seal(webhookId: string, input: ReadonlyArray<{ name: string; value: string }>): SealedHeader[] {
    return input.map(({ name, value }) => ({
      name,
      ciphertext: this.cipher.encrypt(value, headerValueContext(webhookId, name)),
    }));
  }

  /**
   * The headers to store for a PATCH: the list replaces the stored one; an entry without `value` keeps the value
   * stored for that name (any letter case; the ciphertext is kept as it is), and is refused when there is none.
   */
  async resolve(webhookId: string, input: ReadonlyArray<{ name: string; value?: string }>): Promise<SealedHeader[]> {
    const keeps = input.some((entry) => entry.value === undefined);
    const stored = keeps ? await this.headers.findBy({ webhookId }) : [];
    const byName = new Map(stored.map((row) => [row.name.toLowerCase(), row.ciphertext]));
    const errors: Array<{ field: string; message: string }> = [];
    const sealed = input.map(({ name, value }, index) => {
      if (value !== undefined)
        return { name, ciphertext: this.cipher.encrypt(value, headerValueContext(webhookId, name)) };
      const ciphertext = byName.get(name.toLowerCase());
      if (!ciphertext) {
        errors.push({ field: `headers.${index}.value`, message: `is required: "${name}" has no stored value to keep` });
      }
      return { name, ciphertext: ciphertext ?? Buffer.alloc(0) };
    });
    if (errors.length > 0) {
      throw new WebhookException('The webhook settings are invalid.', WebhookExceptionCode.INVALID_SETTINGS, errors);
    }
    return sealed;
  }

  /** The headers of these webhooks as shown, by webhook id (a webhook without headers is absent). */
  async viewsOf(webhookIds: readonly string[]): Promise<Map<string, WebhookHeaderView[]>> {
    const views = new Map<string, WebhookHeaderView[]>();
    if (webhookIds.length === 0) return views;
    const rows = await this.headers.find({ where: { webhookId: In([...webhookIds]) }, order: { position: 'ASC' } });
    for (const row of rows) {
      const list = views.get(row.webhookId) ?? [];
      list.push(this.view(row.webhookId, row));
      views.set(row.webhookId, list);
    }
    return views;
  }

  /** What a sealed header is shown as. */
  view(webhookId: string, header: SealedHeader): WebhookHeaderView {
    const value = this.cipher.decrypt(header.ciphertext, headerValueContext(webhookId, header.name));
    return { name: header.name, valueLast4: maskedHeaderValue(value) };
  }
}
