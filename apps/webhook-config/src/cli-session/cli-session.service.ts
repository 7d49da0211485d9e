import { Injectable, Logger } from '@nestjs/common';
import { randomUUIDv7 } from 'node:crypto';
import {
  EVENT_KINDS,
  generateWebhookSecret,
  LATEST_WEBHOOK_VERSION,
  SAMPLE_EVENT_TYPES,
  sampleSubjectOf,
  type EventKind,
  type PlatformEventType,
  type WebhookContentType,
  type WebhookVersion,
} from '#domain';
import { AmqpClient, cliRoutingKey, CLI_SESSION_KEEP_MS, EXCHANGES, type PlatformEvent } from '#messaging';
import { SecretCipher } from '#platform';
import type { CliPrincipal } from './cli-key.lookup.js';
import { CliSessionException, CliSessionExceptionCode } from './cli-session.exception.js';
import { CliSessionQueues } from './cli-session.queues.js';
import { CliSessionRepository, type CliSessionListed, type CliSessionLogRow } from './cli-session.repository.js';
import type { StartCliSessionDto } from './dtos/start-cli-session.dto.js';

/** Live sessions an integration may have at once. */
export const MAX_LIVE_SESSIONS = 100;
/** How long the broker has to take a session's queue or a sample event. */
const BROKER_TIMEOUT_MS = 5_000;

export interface CliSessionStarted {
  id: string;
  secret: string;
  merchantId: string;
  integrationId: string;
  events: EventKind[];
  version: WebhookVersion;
  contentType: WebhookContentType;
  forwardTo: string | null;
  keepEventsSeconds: number;
}

/** `payments listen` sessions and `payments trigger` (issue #34, CONTRACT §8; docs/cli-protocol.md). */
@Injectable()
export class CliSessionService {
  private readonly logger = new Logger(CliSessionService.name);

  constructor(
    private readonly sessions: CliSessionRepository,
    private readonly queues: CliSessionQueues,
    private readonly cipher: SecretCipher,
    private readonly amqp: AmqpClient,
  ) {}

  /** A new session of the key's integration, its queue declared (its events wait there from now on). */
  async start(principal: CliPrincipal, settings: StartCliSessionDto): Promise<CliSessionStarted> {
    if ((await this.sessions.countLive(principal.integrationId)) >= MAX_LIVE_SESSIONS) {
      throw new CliSessionException(
        `This integration has ${MAX_LIVE_SESSIONS} live listening sessions, the most it may have: stop one (Ctrl+C) ` +
          'or wait until an abandoned one has been away for a day.',
        CliSessionExceptionCode.TOO_MANY_SESSIONS,
      );
    }
    const id = randomUUIDv7();
    const secret = generateWebhookSecret();
    const events = EVENT_KINDS.filter((kind) => !settings.events || settings.events.includes(kind));
    const row = await this.sessions.create({
      id,
      merchantId: principal.merchantId,
      integrationId: principal.integrationId,
      events,
      version: settings.version ?? LATEST_WEBHOOK_VERSION,
      contentType: settings.contentType ?? 'json',
      forwardTo: settings.forwardTo ?? null,
      secretCiphertext: this.cipher.encrypt(secret, id),
    });
    try {
      await this.queues.declare(row, BROKER_TIMEOUT_MS);
    } catch (error) {
      this.logger.warn(`could not declare the queue of listening session ${id}: ${(error as Error).message}`);
      await this.sessions.disconnected(id, true);
      throw notQueued();
    }
    this.logger.log(`listening session ${id} started for integration ${principal.integrationId}`);
    return {
      id,
      secret,
      merchantId: row.merchantId,
      integrationId: row.integrationId,
      events,
      version: row.version as WebhookVersion,
      contentType: row.contentType as WebhookContentType,
      forwardTo: row.forwardTo,
      keepEventsSeconds: CLI_SESSION_KEEP_MS / 1000,
    };
  }

  /**
   * A sample event of `kind` (the catalog's sample with new ids and times, of the key's integration), published on
   * `payments.cli` under the sessions' routing key: only the integration's sessions that listen to the kind get it.
   */
  async trigger(
    principal: CliPrincipal,
    kind: EventKind,
  ): Promise<{ eventId: string; eventType: PlatformEventType; sessions: number }> {
    const eventId = randomUUIDv7();
    const at = new Date().toISOString();
    const subject = sampleSubjectOf(kind, { id: randomUUIDv7(), at, integrationId: principal.integrationId });
    const record = (subject as unknown as Record<EventKind, Record<string, unknown>>)[kind];
    const event: PlatformEvent = {
      v: 1,
      id: eventId,
      type: SAMPLE_EVENT_TYPES[kind],
      category: kind,
      merchantId: principal.merchantId,
      integrationId: principal.integrationId,
      occurredAt: at,
      subjectId: String(record.uuid ?? record.id),
      data: record,
    };
    const routingKey = cliRoutingKey(principal.merchantId, principal.integrationId, kind);
    try {
      await this.amqp.publish(EXCHANGES.cli, routingKey, Buffer.from(JSON.stringify(event)), {
        messageId: eventId,
        type: event.type,
      });
    } catch (error) {
      this.logger.warn(`could not publish a sample ${kind} event: ${(error as Error).message}`);
      throw notQueued();
    }
    return {
      eventId,
      eventType: event.type as PlatformEventType,
      sessions: await this.sessions.countListening(principal.integrationId, kind),
    };
  }

  listLive(merchantId: string): Promise<CliSessionListed[]> {
    return this.sessions.listLive(merchantId);
  }

  /** A page of the log of the merchant's session `id`, newest first. */
  async logs(
    merchantId: string,
    id: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ data: CliSessionLogRow[]; nextCursor: string | null }> {
    if (!(await this.sessions.exists(merchantId, id))) {
      throw new CliSessionException('No such listening session.', CliSessionExceptionCode.SESSION_NOT_FOUND);
    }
    const data = await this.sessions.logs(id, limit, cursor);
    return { data, nextCursor: data.length === limit ? data[data.length - 1]!.id : null };
  }
}

function notQueued(): CliSessionException {
  return new CliSessionException(
    'The message broker did not answer in time; try again in a moment.',
    CliSessionExceptionCode.NOT_QUEUED,
  );
}
