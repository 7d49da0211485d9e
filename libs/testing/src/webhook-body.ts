import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import {
  WEBHOOK_HEADER_SCHEMAS,
  WEBHOOK_MIME_TYPES,
  isWebhookContentType,
  isWebhookEventType,
  isWebhookVersion,
  phpPostSchema,
  webhookPayloadSchema,
  type JsonSchema,
} from '#domain';

/** The settings of the webhook a body was sent for: which payload version, which content type. */
export interface WebhookBodySettings {
  version: string;
  contentType: string;
}

/** What a receiver got: the body and, when the receiver saw them, the request headers (Node's, lower case). */
export interface ReceivedWebhook {
  headers?: Readonly<Record<string, string | string[] | undefined>>;
  body: string | Uint8Array;
}

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);
const validators = new Map<JsonSchema | string, ValidateFunction>();

function validator(key: JsonSchema | string, schema: () => JsonSchema): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) validators.set(key, (validate = ajv.compile(schema())));
  return validate;
}

function problemsOf(validate: ValidateFunction, value: unknown, what: string): string[] {
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${what}${e.instancePath} ${e.message}`);
}

/**
 * What PHP's `$_POST` holds for a form body (`parse_str`, run by the real PHP CLI), as JSON. The tests need PHP
 * anyway (php-cli, see scripts/system-tools.js).
 */
export async function parsePhpPost(body: string): Promise<unknown> {
  const code =
    'parse_str(stream_get_contents(STDIN), $post); echo json_encode($post, JSON_FORCE_OBJECT | JSON_THROW_ON_ERROR);';
  const child = spawn('php', ['-n', '-r', code], { stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.end(body);
  const [exitCode] = (await once(child, 'close')) as [number | null];
  if (exitCode !== 0) throw new Error(`php parse_str exited with ${exitCode}: ${Buffer.concat(err).toString('utf8')}`);
  return JSON.parse(Buffer.concat(out).toString('utf8')) as unknown;
}

/**
 * Every way a delivered webhook differs from what libs/domain publishes for its webhook's version and content type
 * (the schemas of transaction-api's OpenAPI `webhooks`): the headers, when given, against their schemas and the
 * content type; a JSON body against the payload schema; a PHP-Post body as PHP's `$_POST` rebuilds it, against the
 * schema of that tree. The event type is the body's one top-level key. Empty when the webhook is as published.
 */
export async function webhookBodyProblems(received: ReceivedWebhook, webhook: WebhookBodySettings): Promise<string[]> {
  const { version, contentType } = webhook;
  if (!isWebhookVersion(version) || !isWebhookContentType(contentType)) {
    return [`no such webhook settings: version ${version}, content type ${contentType}`];
  }
  const problems: string[] = [];
  if (received.headers) {
    for (const [name, schema] of Object.entries(WEBHOOK_HEADER_SCHEMAS)) {
      problems.push(
        ...problemsOf(
          validator(schema, () => schema),
          received.headers[name],
          `header ${name}`,
        ),
      );
    }
    if (received.headers['content-type'] !== WEBHOOK_MIME_TYPES[contentType]) {
      problems.push(`header content-type is not ${WEBHOOK_MIME_TYPES[contentType]}`);
    }
  }
  const text = typeof received.body === 'string' ? received.body : Buffer.from(received.body).toString('utf8');
  let tree: unknown;
  try {
    tree = contentType === 'json' ? JSON.parse(text) : await parsePhpPost(text);
  } catch (error) {
    return [...problems, `the body cannot be read as ${contentType}: ${String(error)}`];
  }
  const keys = tree !== null && typeof tree === 'object' ? Object.keys(tree) : [];
  const eventType = keys.length === 1 ? keys[0] : undefined;
  if (!isWebhookEventType(eventType)) {
    return [...problems, `the body has no single key transaction, subscription or payout: [${keys.join(', ')}]`];
  }
  const validate = validator(`${eventType} ${version} ${contentType}`, () => {
    const schema = webhookPayloadSchema(eventType, version);
    return contentType === 'json' ? schema : phpPostSchema(schema);
  });
  return [...problems, ...problemsOf(validate, tree, 'body')];
}

/**
 * Throws unless the delivered webhook is exactly as published for its webhook's version and content type
 * ({@link webhookBodyProblems}); the message names each difference and shows the start of the body.
 */
export async function expectValidWebhookBody(received: ReceivedWebhook, webhook: WebhookBodySettings): Promise<void> {
  const problems = await webhookBodyProblems(received, webhook);
  if (problems.length > 0) {
    const body = typeof received.body === 'string' ? received.body : Buffer.from(received.body).toString('utf8');
    throw new Error(
      `A webhook body (${webhook.contentType}, version ${webhook.version}) is not as its schema says:\n  ` +
        `${problems.join('\n  ')}\n  body: ${body.slice(0, 1000)}`,
    );
  }
}

/**
 * Collects every request a test receiver gets and checks each against the webhook it was sent for, reporting all
 * failures together: receivers call {@link check} per request and {@link assertValid} when the test is done (e.g. when
 * they stop). The checking itself waits for `assertValid`, so it never slows a receiver down while deliveries run.
 */
export class WebhookBodyChecks {
  private readonly received: { request: ReceivedWebhook; webhook: WebhookBodySettings | undefined; where: string }[] =
    [];
  private readonly failures = new Map<number, Promise<string | undefined>>();

  /**
   * Record one request for checking. `webhook` is the webhook the receiver serves at that URL; `undefined` (the
   * receiver does not know it) is a failure too, so no body goes unchecked.
   */
  check(request: ReceivedWebhook, webhook: WebhookBodySettings | undefined, where: string): void {
    this.received.push({ request, webhook, where });
  }

  /** How many requests were recorded so far. */
  get count(): number {
    return this.received.length;
  }

  /** Resolves once every request recorded so far is valid; rejects with every failure otherwise. */
  async assertValid(): Promise<void> {
    this.received.forEach(({ request, webhook, where }, index) => {
      if (this.failures.has(index)) return;
      this.failures.set(
        index,
        webhook === undefined
          ? Promise.resolve(`${where}: no webhook is known to be served here, so its body cannot be checked`)
          : expectValidWebhookBody(request, webhook).then(
              () => undefined,
              (error: Error) => `${where}: ${error.message}`,
            ),
      );
    });
    const failures = (await Promise.all(this.failures.values())).filter((failure) => failure !== undefined);
    if (failures.length > 0) {
      throw new Error(`${failures.length} of ${this.received.length} webhook bodies failed:\n${failures.join('\n')}`);
    }
  }
}
