import amqplib, { type GetMessage, type MessagePropertyHeaders } from 'amqplib';
import { amqpNodeLabel, splitAmqpUrls } from './amqp-urls.js';
import { ATTEMPT_HEADER, GUARD_HEADER } from './messages.js';
import { DEFAULT_AMQP_URL, EXCHANGES, PARKED_REASON_HEADER, QUEUES, ROUTING_KEYS } from './topology.js';

/**
 * Where each parked queue's messages go back to. Events and commands go straight to the dispatcher's queue (the
 * default exchange), not through their exchanges, which would hand a copy to every other queue bound there too;
 * deliveries through the delivery exchange, as the fan-out publishes a first attempt. `dispatcher.config.parked` is
 * not redriven: each dispatcher process parked its own copy of a broadcast cache refresh.
 */
export const REDRIVE_TARGETS: Readonly<Record<string, { exchange: string; routingKey: string }>> = {
  [QUEUES.parkedDeliveries]: { exchange: EXCHANGES.deliveries, routingKey: ROUTING_KEYS.deliver },
  [QUEUES.parkedEvents]: { exchange: '', routingKey: QUEUES.dispatcherEvents },
  [QUEUES.parkedCommands]: { exchange: '', routingKey: QUEUES.dispatcherCommands },
  [QUEUES.parkedWebhookHealth]: { exchange: '', routingKey: QUEUES.webhookHealth },
};

export const REDRIVE_USAGE =
  'usage: redrive.main.js [--queue deliveries|events|commands|<parked queue>] [--limit n] [--dry-run]  ' +
  '(default: every parked queue, every message parked at the start; reads AMQP_URL)';

export interface RedriveOptions {
  /** Parked queues, by full name. */
  queues: string[];
  /** At most this many messages per queue (undefined: those parked when the queue's turn starts). */
  limit?: number;
  dryRun: boolean;
}

export interface RedriveReport {
  queue: string;
  /** Messages in the queue when its turn started. */
  parked: number;
  /** Messages republished (confirmed) and removed from the parked queue; 0 in a dry run. */
  moved: number;
  /** Why the messages looked at were parked, with how many each. */
  reasons: Record<string, number>;
}

/** Headers the broker or the parking added, which the message must not carry back to its queue. */
const PARKING_HEADERS = /^x-(death|first-death-|last-death-|delivery-count$)/;

/** Why a message was parked: `x-parked-reason` when a consumer parked it, else the broker's dead-letter reason. */
export function parkedReason(headers: MessagePropertyHeaders = {}): string {
  const reason = headers[PARKED_REASON_HEADER];
  if (typeof reason === 'string' || Buffer.isBuffer(reason)) return String(reason);
  const death = headers['x-death']?.[0];
  const why = headers['x-first-death-reason'] ?? death?.reason;
  const from = headers['x-first-death-queue'] ?? death?.queue;
  return why === undefined ? 'no reason recorded' : `dead-lettered (${String(why)}) from ${String(from ?? '?')}`;
}

/**
 * The headers a redriven message goes back with: the parking's and the broker's dead-letter headers dropped, and, for
 * a delivery, the next attempt number (`x-attempt` + 1) without `x-guard`: the parked attempt counts as made, so
 * the redriven one is one more attempt with a number of its own. A delivery whose `x-attempt` is not a number keeps
 * it as it is (it is parked again for it).
 */
export function redriveHeaders(queue: string, headers: MessagePropertyHeaders = {}): MessagePropertyHeaders {
  const kept: MessagePropertyHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name !== PARKED_REASON_HEADER && !PARKING_HEADERS.test(name)) kept[name] = value;
  }
  if (queue === QUEUES.parkedDeliveries) {
    delete kept[GUARD_HEADER];
    const attempt = kept[ATTEMPT_HEADER];
    if (Number.isInteger(attempt) && (attempt as number) >= 1) kept[ATTEMPT_HEADER] = (attempt as number) + 1;
  }
  return kept;
}

/**
 * Moves messages from parked queues back to where they came from, one at a time: republished with a publisher
 * confirm (and `mandatory`: a message no queue takes counts as failed), and acked in the parked queue only once
 * confirmed. If the process dies midway, the message in hand is still parked (and perhaps also redriven: at worst
 * once twice), never lost. Only the messages parked when a queue's turn starts are taken, so a message that is
 * parked again at once is not taken twice. A dry run takes the same messages, counts their reasons and gives them
 * all back.
 */
export async function redrive(url: string | readonly string[], options: RedriveOptions): Promise<RedriveReport[]> {
  const connection = await connectToAny(typeof url === 'string' ? [url] : url);
  connection.on('error', () => undefined); // the operation in progress rejects with it
  try {
    const reports: RedriveReport[] = [];
    for (const queue of options.queues) {
      const target = REDRIVE_TARGETS[queue];
      const channel = await connection.createConfirmChannel();
      channel.on('error', () => undefined); // likewise
      let returned = false;
      channel.on('return', () => (returned = true));
      const { messageCount } = await channel.checkQueue(queue);
      const report: RedriveReport = { queue, parked: messageCount, moved: 0, reasons: {} };
      const take = Math.min(options.limit ?? messageCount, messageCount);
      for (let n = 0; n < take; n += 1) {
        const message: GetMessage | false = await channel.get(queue, { noAck: false });
        if (!message) break;
        const reason = parkedReason(message.properties.headers);
        report.reasons[reason] = (report.reasons[reason] ?? 0) + 1;
        if (options.dryRun) continue; // kept unacked until the channel closes, so it is not taken twice
        const { messageId, type, contentType, contentEncoding, timestamp, appId, correlationId, headers } =
          message.properties;
        channel.publish(target.exchange, target.routingKey, message.content, {
          persistent: true,
          mandatory: true,
          messageId,
          type,
          contentType,
          contentEncoding,
          timestamp,
          appId,
          correlationId,
          headers: redriveHeaders(queue, headers),
        });
        await channel.waitForConfirms();
        if (returned) throw new Error(`no queue is bound to ${target.exchange || '(default)'}/${target.routingKey}`);
        channel.ack(message);
        report.moved += 1;
      }
      await channel.close(); // gives back what a dry run took
      reports.push(report);
    }
    return reports;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** A connection to the first of the listed nodes (one cluster) that takes it; fails with every node's reason. */
async function connectToAny(urls: readonly string[]): Promise<amqplib.ChannelModel> {
  const reasons: string[] = [];
  for (const url of urls) {
    try {
      return await amqplib.connect(url, { timeout: 5_000, clientProperties: { connection_name: 'redrive' } });
    } catch (error) {
      reasons.push(urls.length > 1 ? `${amqpNodeLabel(url)}: ${(error as Error).message}` : (error as Error).message);
    }
  }
  throw new Error(reasons.join('; '));
}

/** Reads the command line; a string is the problem with it. */
export function parseRedriveArgs(args: string[]): RedriveOptions | string {
  const options: RedriveOptions = { queues: [], dryRun: false };
  const rest = args.flatMap((arg) =>
    /^--\w+=/.test(arg) ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg],
  );
  while (rest.length > 0) {
    const arg = rest.shift();
    if (arg === '--dry-run') options.dryRun = true;
    else if (arg === '--queue') {
      const name = rest.shift() ?? '';
      const queue = REDRIVE_TARGETS[name] ? name : `dispatcher.${name}.parked`;
      if (!REDRIVE_TARGETS[queue]) return `unknown queue ${JSON.stringify(name)}`;
      options.queues.push(queue);
    } else if (arg === '--limit') {
      const limit = rest.shift() ?? '';
      if (!/^[1-9]\d{0,8}$/.test(limit)) return '--limit must be a whole number ≥ 1';
      options.limit = Number(limit);
    } else return `unknown argument ${JSON.stringify(arg)}`;
  }
  if (options.queues.length === 0) options.queues = Object.keys(REDRIVE_TARGETS);
  return options;
}

/**
 * The redrive CLI (`npm run deliveries:redrive -- [options]`). Answers the exit code; writes per queue what it found
 * and did through `out`/`err`. The broker's errors are printed by message only (they do not carry the password).
 */
export async function runRedriveCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  const options = parseRedriveArgs(args);
  if (typeof options === 'string') {
    err(`redrive: ${options}; ${REDRIVE_USAGE}`);
    return 2;
  }
  try {
    const reports = await redrive(splitAmqpUrls(env.AMQP_URL?.trim() || DEFAULT_AMQP_URL), options);
    for (const { queue, parked, moved, reasons } of reports) {
      const { exchange, routingKey } = REDRIVE_TARGETS[queue];
      const looked = Object.values(reasons).reduce((sum, count) => sum + count, 0);
      out(
        options.dryRun
          ? `redrive: ${queue}: ${parked} parked; would move ${looked} to ${exchange || '(default)'}/${routingKey}`
          : `redrive: ${queue}: ${parked} parked; moved ${moved} to ${exchange || '(default)'}/${routingKey}`,
      );
      for (const [reason, count] of Object.entries(reasons)) out(`  ${count}  ${reason}`);
    }
    return 0;
  } catch (error) {
    err(`redrive: failed: ${(error as Error).message}`);
    return 1;
  }
}
