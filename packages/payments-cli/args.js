// @ts-check
// Command line arguments: `--name value` and `--name=value`, booleans for `--help`; anything else is a usage error.

export const EVENT_KINDS = ['transaction', 'subscription', 'payout', 'webhook'];
export const CONTENT_TYPES = ['json', 'php-post'];

/** A mistake in how the command was called: printed with a hint at `--help`, exit code 2. */
export class UsageError extends Error {
  /** @param {string} message @param {string} command */
  constructor(message, command) {
    super(message);
    this.command = command;
  }
}

const ENVIRONMENT = `Environment:
  PAYMENTS_API_KEY       the API key, when --api-key is not given
  PAYMENTS_BACKEND_URL   the merchant backend (webhook-config), default http://127.0.0.1:3001
  PAYMENTS_API_URL       the merchant API (transaction-api), default http://127.0.0.1:3000
                         (accepted for completeness: listen and trigger talk to the backend only)`;

export const USAGE = {
  main: `Usage: payments <command> [options]

Commands:
  listen    forward your integration's events to a local URL, signed as a webhook would be
  trigger   send a sample event to your listening sessions

Run "payments <command> --help" for the options of a command.

${ENVIRONMENT}

Exit codes: 0 done, 1 an error (a wrong key, the backend not reachable, …), 2 a usage error.
`,
  listen: `Usage: payments listen --api-key <key> --forward-to <url> [options]

Forwards every event of the key's integration to <url> exactly as a webhook of the chosen version and content
type receives it, signed with the session's secret (printed once ready). One line per event; never retried.
Ctrl+C ends the session.

Options:
  --api-key <key>               the integration's API key (or PAYMENTS_API_KEY)
  --forward-to <url>            the local http(s) URL to POST each event to
  --events <kinds>              comma-separated: transaction,subscription,payout,webhook (default: all)
  --version <version>           the payload version, e.g. 2026-08-20 (default: the newest)
  --content-type <json|php-post>  the body's encoding (default: json)
  -h, --help                    this text

${ENVIRONMENT}
`,
  trigger: `Usage: payments trigger <transaction|subscription|payout|webhook> --api-key <key>

Sends a sample event of that kind (new ids and times) to your integration's listening sessions that selected it.
No webhook receives it.

Options:
  --api-key <key>   the integration's API key (or PAYMENTS_API_KEY)
  -h, --help        this text

${ENVIRONMENT}
`,
};

/**
 * @typedef {{ command: 'help', topic: 'main' | 'listen' | 'trigger' }} HelpCommand
 * @typedef {{ command: 'listen', apiKey: string, forwardTo: string, events?: string[], version?: string,
 *   contentType?: string, timeoutMs: number }} ListenCommand
 * @typedef {{ command: 'trigger', apiKey: string, kind: string }} TriggerCommand
 * @typedef {HelpCommand | ListenCommand | TriggerCommand} Command
 */

/** Flags taking a value, per command; `--timeout-ms` (the local forward timeout) is for tests and not shown. */
const VALUE_FLAGS = {
  listen: ['api-key', 'forward-to', 'events', 'version', 'content-type', 'timeout-ms'],
  trigger: ['api-key'],
};

/**
 * @param {string[]} argv the arguments after the script
 * @param {NodeJS.ProcessEnv} env
 * @returns {Command}
 */
export function parseCommand(argv, env) {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    return { command: 'help', topic: 'main' };
  }
  if (command !== 'listen' && command !== 'trigger') {
    throw new UsageError(
      command.startsWith('-') ? `unknown option ${command}` : `unknown command "${command}"`,
      'main',
    );
  }
  const { flags, positionals, help } = parseFlags(rest, VALUE_FLAGS[command], command);
  if (help) return { command: 'help', topic: command };
  const apiKey = flags['api-key'] ?? env.PAYMENTS_API_KEY;
  if (!apiKey) throw new UsageError('an API key is required: --api-key <key> or PAYMENTS_API_KEY', command);

  if (command === 'trigger') {
    if (positionals.length === 0) throw new UsageError(`which kind? ${EVENT_KINDS.join(', ')}`, command);
    if (positionals.length > 1) throw new UsageError(`one kind only, got "${positionals.join(' ')}"`, command);
    const kind = positionals[0];
    if (!EVENT_KINDS.includes(kind)) {
      throw new UsageError(`unknown kind "${kind}": one of ${EVENT_KINDS.join(', ')}`, command);
    }
    return { command, apiKey, kind };
  }

  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, command);
  const forwardTo = flags['forward-to'];
  if (!forwardTo) throw new UsageError('--forward-to <url> is required', command);
  if (!isHttpUrl(forwardTo)) throw new UsageError(`--forward-to must be an http:// or https:// URL`, command);
  /** @type {ListenCommand} */
  const listen = { command, apiKey, forwardTo, timeoutMs: forwardTimeoutMs(flags['timeout-ms'], env, command) };
  if (flags.events !== undefined) {
    const events = flags.events.split(',').map((kind) => kind.trim());
    const unknown = events.filter((kind) => !EVENT_KINDS.includes(kind));
    if (unknown.length > 0 || events.length === 0) {
      throw new UsageError(
        `--events: unknown kind "${unknown[0] ?? ''}": a comma-separated list of ${EVENT_KINDS.join(', ')}`,
        command,
      );
    }
    listen.events = [...new Set(events)];
  }
  if (flags.version !== undefined) listen.version = flags.version;
  if (flags['content-type'] !== undefined) {
    if (!CONTENT_TYPES.includes(flags['content-type'])) {
      throw new UsageError(`--content-type must be ${CONTENT_TYPES.join(' or ')}`, command);
    }
    listen.contentType = flags['content-type'];
  }
  return listen;
}

/**
 * @param {string[]} args
 * @param {string[]} valueFlags
 * @param {string} command
 */
function parseFlags(args, valueFlags, command) {
  /** @type {Record<string, string>} */
  const flags = {};
  /** @type {string[]} */
  const positionals = [];
  let help = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const name = match?.[1];
    if (!match || name === undefined || !valueFlags.includes(name)) {
      // Only the flag's name: `--api-key=…` mistyped must not print the key.
      throw new UsageError(`unknown option ${arg.split('=')[0]}`, command);
    }
    let value = match[2];
    if (value === undefined) {
      value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`, command);
      i++;
    }
    if (name in flags) throw new UsageError(`--${name} is given twice`, command);
    flags[name] = value;
  }
  return { flags, positionals, help };
}

/** @param {string} text */
function isHttpUrl(text) {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * @param {string | undefined} flag
 * @param {NodeJS.ProcessEnv} env
 * @param {string} command
 */
function forwardTimeoutMs(flag, env, command) {
  const text = flag ?? env.PAYMENTS_FORWARD_TIMEOUT_MS;
  if (text === undefined || text === '') return 20_000;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 1)
    throw new UsageError('the forward timeout must be a whole number of ms', command);
  return ms;
}
