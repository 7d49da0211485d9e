import {
  BaseConfig,
  DEFAULT_WEBHOOK_LOG_RETENTION_MS,
  type EnvReader,
  readBaseConfig,
  readLogRetention,
  readRetryDelays,
} from '#platform';

export const DEV_PLATFORM_TOKEN = 'development-platform-token';
/** Development only: a fixed key so secrets survive restarts of `npm start`. Production must set its own. */
export const DEV_SECRET_ENCRYPTION_KEY = Buffer.alloc(32, 'dev-only-key').toString('base64');

/** webhook-config settings from the environment (README, Configuration), read and validated once at start. */
export class WebhookConfigConfig {
  constructor(
    readonly base: BaseConfig,
    readonly port: number,
    readonly platformToken: string,
    /** 32 bytes: AES-256-GCM key for webhook secrets at rest. */
    readonly secretEncryptionKey: Buffer,
    /** Allow webhook URLs on loopback/private addresses (development and tests only). */
    readonly allowPrivateTargets: boolean,
    /**
     * Behind reverse proxies (their addresses): trust their X-Forwarded-For/-Proto, so login limits count the real
     * client address and the session cookie is marked Secure when the browser spoke HTTPS.
     */
    readonly trustProxy: false | string[] = false,
    /** WEBHOOK_RETRY_DELAYS, as the dispatcher reads it: shown to merchants as what "retry on error" does. */
    readonly retryDelaysMs: number[] = [],
    /** WEBHOOK_SENDER_ADDRESSES: the addresses and ranges deliveries leave from, published for allow-lists. */
    readonly senderAddresses: string[] = [],
    /** WEBHOOK_LOG_RETENTION, as the dispatcher reads it: shown to merchants as how long the log is kept. */
    readonly logRetentionMs: number = DEFAULT_WEBHOOK_LOG_RETENTION_MS,
    /** SMTP_URL and MAIL_FROM: notices also go out by e-mail; undefined: only in the backend. */
    readonly mail?: MailConfig,
  ) {}

  /** Session cookies are always Secure in production; elsewhere only when the request came over HTTPS. */
  get alwaysSecureCookies(): boolean {
    return this.base.nodeEnv === 'production';
  }
}

export function loadWebhookConfigConfig(env: NodeJS.ProcessEnv): WebhookConfigConfig {
  const { reader, base } = readBaseConfig(env);
  const retryDelaysMs = readRetryDelays(reader);
  const config = new WebhookConfigConfig(
    base,
    reader.port('WEBHOOK_CONFIG_PORT', 3001),
    reader.secret('PLATFORM_TOKEN', { devDefault: DEV_PLATFORM_TOKEN, minLength: 16 }),
    reader.base64Key('SECRET_ENCRYPTION_KEY', 32, { devDefault: DEV_SECRET_ENCRYPTION_KEY }),
    reader.bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    reader.proxyTrust('TRUST_PROXY'),
    retryDelaysMs,
    reader.addressRanges('WEBHOOK_SENDER_ADDRESSES'),
    readLogRetention(reader, retryDelaysMs),
    readMail(reader),
  );
  reader.done();
  return config;
}

/** How notices are e-mailed (SMTP_URL, MAIL_FROM, SMTP_TIMEOUT, SMTP_RETRY_MAX). */
export interface MailConfig {
  smtpUrl: string;
  from: string;
  /** Connecting, the server's greeting, and any silence of the socket: each gives up after this (nodemailer's own are minutes). */
  timeoutMs: number;
  /** An e-mail that could not be sent is tried again after 1 s, doubling, at most this long after the last try. */
  retryMaxMs: number;
}

/** An address nodemailer can send from: `name@host`, perhaps as `Display Name <name@host>`. */
const MAIL_ADDRESS = /^(?:[^<>\r\n]*<)?[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>?$/;

/** SMTP_URL (smtp:// or smtps://, user and password in it) with MAIL_FROM, or neither. Never echoes the URL. */
function readMail(reader: EnvReader): MailConfig | undefined {
  const smtpUrl = reader.url('SMTP_URL', ['smtp:', 'smtps:'], { default: '' });
  const from = reader.string('MAIL_FROM', { default: '' });
  const timeoutMs = reader.duration('SMTP_TIMEOUT', { default: 10_000, min: 100, max: 120_000 });
  const retryMaxMs = reader.duration('SMTP_RETRY_MAX', { default: 60_000, min: 1_000, max: 3_600_000 });
  if (from && !MAIL_ADDRESS.test(from)) reader.refuse('MAIL_FROM', 'must be an e-mail address (name@example.com)');
  if (!smtpUrl) return undefined;
  if (!from) reader.refuse('MAIL_FROM', 'is required when SMTP_URL is set');
  return { smtpUrl, from, timeoutMs, retryMaxMs };
}
