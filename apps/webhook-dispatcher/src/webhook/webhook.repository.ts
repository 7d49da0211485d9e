import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { WebhookContentType } from '#domain';
import type { EventCategory } from '#messaging';
import { DatabaseRetry } from '../common/database-retry.js';

export interface WebhookRow {
  id: string;
  merchantId: string;
  integrationId: string | null;
  url: string;
  contentType: WebhookContentType;
  version: string;
  retryOnError: boolean;
  events: EventCategory[];
  /** Disabled: nothing is sent, each delivery is logged as skipped (tests and resends are still made). */
  enabled: boolean;
  /** When its merchant last enabled it after it was disabled (a new failure episode starts then); null: never. */
  enabledAt: Date | null;
  maxPerSecond: number | null;
  skipSupersededRepeats: boolean;
}

export interface SecretRow {
  webhookId: string;
  ciphertext: Buffer;
  expiresAt: Date | null;
}

export interface HeaderRow {
  name: string;
  ciphertext: Buffer;
}

const WEBHOOK_COLUMNS = `id, merchant_id AS "merchantId", integration_id AS "integrationId", url,
  content_type AS "contentType", version, retry_on_error AS "retryOnError", events, enabled,
  enabled_at AS "enabledAt", max_per_second AS "maxPerSecond", skip_superseded_repeats AS "skipSupersededRepeats"`;

/**
 * Reads webhooks, their signing secrets and custom header values (still encrypted) through webhook-config's views of them; waits out
 * database outages (DatabaseRetry).
 */
@Injectable()
export class WebhookRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly retry: DatabaseRetry,
  ) {}

  findByMerchant(merchantId: string): Promise<WebhookRow[]> {
    return this.query(`SELECT ${WEBHOOK_COLUMNS} FROM backend.webhook_for_dispatcher WHERE merchant_id = $1`, [
      merchantId,
    ]);
  }

  async findById(id: string): Promise<WebhookRow | undefined> {
    const rows = await this.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM backend.webhook_for_dispatcher WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Secrets that can still sign (current, or rotated but not yet expired), newest first. */
  findSigningSecrets(webhookId: string): Promise<SecretRow[]> {
    return this.query(
      `SELECT webhook_id AS "webhookId", ciphertext, expires_at AS "expiresAt"
         FROM backend.webhook_secret_for_dispatcher
        WHERE webhook_id = $1 AND (expires_at IS NULL OR expires_at > now())
        ORDER BY (expires_at IS NULL) DESC, created_at DESC`,
      [webhookId],
    );
  }

  /** The webhook's custom headers in order, values still encrypted. */
  findHeaders(webhookId: string): Promise<HeaderRow[]> {
    return this.query(
      `SELECT name, ciphertext FROM backend.webhook_header_for_dispatcher WHERE webhook_id = $1 ORDER BY position`,
      [webhookId],
    );
  }

  /** The latest secrets of any webhooks (to check at start that SECRET_ENCRYPTION_KEY opens them). */
  latestSecrets(limit: number): Promise<SecretRow[]> {
    return this.query(
      `SELECT webhook_id AS "webhookId", ciphertext, expires_at AS "expiresAt"
         FROM backend.webhook_secret_for_dispatcher
        ORDER BY created_at DESC LIMIT $1`,
      [limit],
    );
  }

  private query<T>(sql: string, parameters: unknown[]): Promise<T[]> {
    return this.retry.run(() => this.db.query(sql, parameters));
  }
}
