import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** How long an ended session, or one nobody connected to for this long, is kept (with its log). */
export const CLI_SESSION_KEPT_MS = 24 * 60 * 60_000;
/** Log entries kept per session: the newest ones. */
export const CLI_SESSION_LOG_KEPT = 1_000;
/** A connected session's last_seen_at is renewed this often; one not renewed for three times as long is not connected. */
export const CLI_SESSION_SEEN_EVERY_MS = 15_000;

export interface CliSessionRow {
  id: string;
  merchantId: string;
  integrationId: string;
  events: string[];
  version: string;
  contentType: string;
  forwardTo: string | null;
  secretCiphertext: Buffer;
  createdAt: Date;
  disconnectedAt: Date | null;
  lastSeenAt: Date;
}

export interface CliSessionListed extends Omit<CliSessionRow, 'secretCiphertext' | 'merchantId' | 'disconnectedAt'> {
  connected: boolean;
}

export interface CliSessionLogRow {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  subjectId: string;
  referenceId: string | null;
  status: number;
  durationMs: number;
  error: string | null;
  createdAt: Date;
}

export type NewCliSessionLog = Omit<CliSessionLogRow, 'id' | 'createdAt'> & { sessionId: string };

const COLUMNS = `id, merchant_id AS "merchantId", integration_id AS "integrationId", events, version,
  content_type AS "contentType", forward_to AS "forwardTo", created_at AS "createdAt", last_seen_at AS "lastSeenAt"`;
const LIVE = `ended_at IS NULL AND last_seen_at > now() - make_interval(secs => ${CLI_SESSION_KEPT_MS / 1000})`;
const CONNECTED = `(disconnected_at IS NULL AND last_seen_at > now() - make_interval(secs => ${(3 * CLI_SESSION_SEEN_EVERY_MS) / 1000}))`;

/**
 * `payments listen` sessions and their logs (backend.cli_session, backend.cli_session_log), and the one thing
 * webhook-config asks transaction-api's data: whose an API key is (`payments.integration_for_api_key`).
 */
@Injectable()
export class CliSessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The integration and merchant of the key whose SHA-256 is `keyHash`, if any. */
  async integrationForKey(keyHash: Buffer): Promise<{ integrationId: string; merchantId: string } | undefined> {
    const [row]: Array<{ integrationId: string; merchantId: string }> = await this.dataSource.query(
      `SELECT integration_id AS "integrationId", merchant_id AS "merchantId" FROM payments.integration_for_api_key($1)`,
      [keyHash],
    );
    return row;
  }

  async countLive(integrationId: string): Promise<number> {
    const [row]: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM cli_session WHERE integration_id = $1 AND ${LIVE}`,
      [integrationId],
    );
    return row!.count;
  }

  async countListening(integrationId: string, kind: string): Promise<number> {
    const [row]: Array<{ count: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS count FROM cli_session WHERE integration_id = $1 AND $2 = ANY (events) AND ${LIVE}`,
      [integrationId, kind],
    );
    return row!.count;
  }

  async create(session: Omit<CliSessionRow, 'createdAt' | 'disconnectedAt' | 'lastSeenAt'>): Promise<CliSessionRow> {
    const [row]: CliSessionRow[] = await this.dataSource.query(
      `INSERT INTO cli_session (id, merchant_id, integration_id, events, version, content_type, forward_to, secret_ciphertext)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING ${COLUMNS}, secret_ciphertext AS "secretCiphertext", disconnected_at AS "disconnectedAt"`,
      [
        session.id,
        session.merchantId,
        session.integrationId,
        session.events,
        session.version,
        session.contentType,
        session.forwardTo,
        session.secretCiphertext,
      ],
    );
    return row!;
  }

  /** The live session `id` of the integration, with its secret. */
  async findLive(id: string, integrationId: string): Promise<CliSessionRow | undefined> {
    const [row]: CliSessionRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS}, secret_ciphertext AS "secretCiphertext", disconnected_at AS "disconnectedAt"
         FROM cli_session WHERE id = $1 AND integration_id = $2 AND ${LIVE}`,
      [id, integrationId],
    );
    return row;
  }

  /**
   * A command line connected: since when nobody was (the last disconnect, which is the creation before the first
   * connection; the last renewal when a process ended without saying so) — read before this connection counts.
   */
  async connected(id: string): Promise<Date> {
    const result: unknown = await this.dataSource.query(
      `WITH old AS (SELECT id, coalesce(disconnected_at, last_seen_at) AS away_since FROM cli_session
                     WHERE id = $1 FOR UPDATE)
       UPDATE cli_session s SET disconnected_at = NULL, last_seen_at = now()
         FROM old WHERE s.id = old.id RETURNING old.away_since AS "awaySince"`,
      [id],
    );
    const [row] = rowsOf<{ awaySince: Date }>(result);
    return row?.awaySince ?? new Date();
  }

  /** The connected sessions of this process are still connected. */
  async seen(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    // Connected here: also when an older connection of the session closed (and noted it) after this one opened.
    await this.dataSource.query(
      `UPDATE cli_session SET last_seen_at = now(), disconnected_at = NULL WHERE id = ANY ($1::uuid[])`,
      [ids],
    );
  }

  async disconnected(id: string, ended: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE cli_session SET disconnected_at = now(), last_seen_at = now(),
              ended_at = CASE WHEN $2 THEN now() ELSE ended_at END WHERE id = $1`,
      [id, ended],
    );
  }

  /** What the command lines reported; an event reported twice (after a reconnect) is logged once. */
  async addLogs(entries: readonly NewCliSessionLog[]): Promise<void> {
    if (entries.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO cli_session_log (session_id, webhook_id, event_id, event_type, subject_id, reference_id, status,
                                    duration_ms, error)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[],
                            $8::int[], $9::text[])
       ON CONFLICT (session_id, webhook_id) DO NOTHING`,
      [
        entries.map((e) => e.sessionId),
        entries.map((e) => e.webhookId),
        entries.map((e) => e.eventId),
        entries.map((e) => e.eventType),
        entries.map((e) => e.subjectId),
        entries.map((e) => e.referenceId),
        entries.map((e) => e.status),
        entries.map((e) => e.durationMs),
        entries.map((e) => e.error),
      ],
    );
  }

  /** The merchant's live sessions, newest first. */
  async listLive(merchantId: string): Promise<CliSessionListed[]> {
    return this.dataSource.query(
      `SELECT ${COLUMNS}, ${CONNECTED} AS connected FROM cli_session
        WHERE merchant_id = $1 AND ${LIVE} ORDER BY created_at DESC LIMIT 200`,
      [merchantId],
    );
  }

  /** Whether the merchant has session `id` (live or kept after it ended). */
  async exists(merchantId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `SELECT 1 FROM cli_session WHERE id = $1 AND merchant_id = $2`,
      [id, merchantId],
    );
    return rows.length > 0;
  }

  /** A page of a session's log, newest first, before the entry `beforeId` (a cursor) when given. */
  async logs(sessionId: string, limit: number, beforeId: string | undefined): Promise<CliSessionLogRow[]> {
    return this.dataSource.query(
      `SELECT l.id::text AS id, webhook_id AS "webhookId", event_id AS "eventId", event_type AS "eventType",
              subject_id AS "subjectId", reference_id AS "referenceId", status, duration_ms AS "durationMs", error,
              created_at AS "createdAt"
         FROM cli_session_log l WHERE session_id = $1 AND ($2::bigint IS NULL OR l.id < $2::bigint)
        ORDER BY l.id DESC LIMIT $3`,
      [sessionId, beforeId ?? null, limit],
    );
  }

  /**
   * Forgets what is no longer kept: sessions ended, or not connected, for a day (their logs with them), and the
   * log entries of the sessions seen lately beyond their newest {@link CLI_SESSION_LOG_KEPT}. How many rows it deleted.
   */
  async forgetOld(): Promise<number> {
    const keptSecs = CLI_SESSION_KEPT_MS / 1000;
    const sessions = await this.dataSource.query(
      `DELETE FROM cli_session WHERE ended_at < now() - make_interval(secs => ${keptSecs})
          OR last_seen_at < now() - make_interval(secs => ${keptSecs})`,
    );
    const logs = await this.dataSource.query(
      `DELETE FROM cli_session_log l
        USING (SELECT s.id, (SELECT x.id FROM cli_session_log x WHERE x.session_id = s.id
                               ORDER BY x.id DESC OFFSET ${CLI_SESSION_LOG_KEPT} LIMIT 1) AS below
                 FROM cli_session s WHERE s.last_seen_at > now() - interval '10 minutes') cut
        WHERE l.session_id = cut.id AND l.id <= cut.below`,
    );
    return affected(sessions) + affected(logs);
  }
}

/** TypeORM's `query` answers an UPDATE or DELETE with `[rows, count]` on PostgreSQL. */
function affected(result: unknown): number {
  return Array.isArray(result) && typeof result[1] === 'number' ? result[1] : 0;
}

function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) && Array.isArray(result[0]) ? (result[0] as T[]) : [];
}
