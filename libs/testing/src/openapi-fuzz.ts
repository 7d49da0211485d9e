import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { Pool } from 'undici';

/**
 * The fuzz tier: hostile input to every operation an app's OpenAPI document publishes, one parameter or body
 * property at a time, the rest of the request valid and with valid credentials (so that the input, not the
 * authentication, is what is tested). A route is covered the day it is documented.
 *
 * Every answer is checked against the contract's promise for bad input (CONTRACT §3): never a 5xx; every refusal an
 * `application/problem+json` whose 400 names the field it refuses (in `errors[].field` or, where there is no list,
 * in `detail`); no echo of a long input beyond a short excerpt; and a refused request changes nothing the API shows
 * (a snapshot taken through the API before and after every refused request of a mutating operation).
 *
 * The values are a fixed catalogue (below) and, per target, `randomPerTarget` values drawn by fast-check from
 * `seed`: the same seed sends the same requests.
 */

// ---------------------------------------------------------------------------------------------- OpenAPI shapes

export interface SchemaObject {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  example?: unknown;
  default?: unknown;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  $ref?: string;
}

interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: SchemaObject;
}

interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: { content?: Record<string, { schema?: SchemaObject }> };
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, SchemaObject> };
}

export interface FuzzOperation {
  method: string;
  /** The documented path template, e.g. `/api/webhooks/{id}`. */
  path: string;
  /** `METHOD /path`: how options and findings name the operation. */
  key: string;
  parameters: ParameterObject[];
  body?: SchemaObject;
  /** The names of the security schemes of the operation's first requirement ([] when none). */
  security: string[];
}

export interface FuzzOptions {
  baseUrl: string;
  document: OpenApiDocument;
  /** The headers that carry valid credentials for these security schemes (e.g. a cookie and X-CSRF-Token). */
  credentials(schemes: string[], operation: FuzzOperation): Record<string, string>;
  /** A valid value for a path parameter (e.g. an existing webhook's id); default: one from the schema. */
  pathValue?(name: string, operation: FuzzOperation): string | undefined;
  /** A valid request body (called for every request: unique values may be made fresh); default: from the schema. */
  body?(operation: FuzzOperation): Record<string, unknown> | undefined;
  /** Operations left out, by key, with the reason (reported). */
  skip?: Record<string, string>;
  /**
   * What the API shows of the data `operation` could change, compared before and after each of its refused requests
   * (mutating operations only).
   */
  snapshot(operation: FuzzOperation): Promise<unknown>;
  /**
   * Called after each request of a mutating operation that succeeded (a hostile value that is valid input), before
   * the snapshot is taken again: undo what would spoil later operations (e.g. `enabled: false` on the webhook the
   * other routes work on).
   */
  afterSuccess?(operation: FuzzOperation): Promise<void>;
  /** Headers sent with every request (e.g. X-Forwarded-For of a trusted proxy). */
  headers?: Record<string, string>;
  seed: number;
  /** Random values per target besides the fixed catalogue. */
  randomPerTarget: number;
}

export interface FuzzFinding {
  operation: string;
  target: string;
  value: string;
  status: number;
  problem: string;
}

export interface FuzzReport {
  operations: string[];
  skipped: string[];
  targets: number;
  requests: number;
  statuses: Record<number, number>;
  findings: FuzzFinding[];
  milliseconds: number;
  /** Requests and milliseconds per operation. */
  byOperation: Record<string, { requests: number; milliseconds: number }>;
}

const MUTATING = new Set(['post', 'put', 'patch', 'delete']);

/** Every operation of the document, with `$ref`s of its body resolved. */
export function operationsOf(document: OpenApiDocument): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        key: `${method.toUpperCase()} ${path}`,
        parameters: operation.parameters ?? [],
        body: bodySchema ? resolve(document, bodySchema) : undefined,
        security: Object.keys(operation.security?.[0] ?? {}),
      });
    }
  }
  return operations;
}

function resolve(document: OpenApiDocument, schema: SchemaObject): SchemaObject {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = document.components?.schemas?.[name];
  if (!target) throw new Error(`OpenAPI fuzz: no schema ${schema.$ref}`);
  return resolve(document, target);
}

// ------------------------------------------------------------------------------------------------ the values

/** One hostile value: `json` for a body property; `raw` (already percent-encoded) for a URL, `header` for a header. */
export interface HostileValue {
  label: string;
  json?: unknown;
  raw?: string;
  header?: string;
}

const FAR_OVER = 100 * 1024;

function typesOf(schema: SchemaObject | undefined): string[] {
  if (!schema) return [];
  const type = schema.type;
  return Array.isArray(type) ? type : type ? [type] : [];
}

/** Percent-encodes a well-formed string for a URL; `raw` values carry their own (possibly invalid) encoding. */
const encode = (text: string) => encodeURIComponent(text);

/** Strings no input should make a 5xx of; `url` is false for the ones a URL cannot carry as text. */
function hostileStrings(schema: SchemaObject | undefined): Array<{ label: string; text: string }> {
  const strings: Array<{ label: string; text: string }> = [
    { label: 'NUL', text: '\u0000' },
    { label: 'NUL inside', text: 'a\u0000b' },
    { label: 'control characters', text: '\u0001\u0007\u001b[31m\u007f' },
    { label: 'CR LF', text: 'a\r\nSet-Cookie: x=1' },
    { label: 'right-to-left marks', text: '\u202egnp.exe\u200f' },
    { label: 'emoji', text: '😀👩‍👩‍👧' },
    { label: 'empty', text: '' },
    { label: 'whitespace', text: ' \t ' },
    { label: '__proto__', text: '__proto__' },
    { label: 'constructor', text: 'constructor' },
    // Recent, so that a field that takes only past times (recover's since) would accept them but for the zone.
    { label: 'timestamp without a zone', text: new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) },
    { label: 'bare date', text: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) },
    { label: 'impossible date', text: '2026-02-30T00:00:00Z' },
    { label: 'year 0', text: '0000-01-01T00:00:00Z' },
    { label: 'number -1', text: '-1' },
    { label: 'number 0', text: '0' },
    { label: 'number 1.5', text: '1.5' },
    { label: 'number 2^53+1', text: '9007199254740993' },
    { label: 'number 1e308', text: '1e308' },
    { label: 'NaN', text: 'NaN' },
    { label: 'Infinity', text: 'Infinity' },
    { label: 'SQL', text: "' OR 1=1 --" },
    { label: 'far over any limit (100 KB)', text: 'x'.repeat(FAR_OVER) },
  ];
  const max = schema?.maxLength;
  if (max !== undefined) {
    strings.push({ label: `at maxLength ${max}`, text: 'x'.repeat(max) });
    strings.push({ label: `over maxLength ${max}`, text: 'x'.repeat(max + 1) });
    strings.push({ label: `over maxLength ${max} in 2-unit characters`, text: '😀'.repeat(max + 1) });
  }
  if (schema?.minLength) strings.push({ label: `under minLength`, text: 'x'.repeat(schema.minLength - 1) });
  return strings;
}

function hostileNumbers(schema: SchemaObject | undefined): Array<{ label: string; value: number }> {
  const numbers = [
    { label: '-1', value: -1 },
    { label: '0', value: 0 },
    { label: '1.5', value: 1.5 },
    { label: '2^53+1', value: 2 ** 53 + 1 },
    { label: '1e308', value: 1e308 },
    { label: '-1e308', value: -1e308 },
  ];
  if (schema?.minimum !== undefined) numbers.push({ label: 'minimum - 1', value: schema.minimum - 1 });
  if (schema?.maximum !== undefined) {
    numbers.push({ label: 'maximum', value: schema.maximum });
    numbers.push({ label: 'maximum + 1', value: schema.maximum + 1 });
  }
  return numbers;
}

/** What a URL (path or query) can carry beyond text: invalid UTF-8 and an encoded lone surrogate. */
const RAW_URL_VALUES: HostileValue[] = [
  { label: 'invalid UTF-8 (lone continuation byte)', raw: '%80' },
  { label: 'invalid UTF-8 (0xFF)', raw: 'a%FFb' },
  { label: 'invalid UTF-8 (truncated sequence)', raw: '%C3%28' },
  { label: 'lone surrogate, UTF-8 encoded', raw: '%ED%A0%80' },
  { label: 'overlong NUL', raw: '%C0%80' },
  { label: 'NUL, percent-encoded', raw: 'x%00y' },
  { label: 'malformed percent-encoding', raw: '%E0%A4%A' },
];

/** The fixed catalogue for one parameter or property. */
export function hostileValues(
  schema: SchemaObject | undefined,
  location: ParameterObject['in'] | 'body',
): HostileValue[] {
  const strings = hostileStrings(schema);
  const numbers = hostileNumbers(schema);
  if (location === 'body') {
    return [
      ...strings.map(({ label, text }) => ({ label, json: text })),
      { label: 'lone high surrogate', json: '\ud800' },
      { label: 'lone low surrogate', json: 'a\udc00' },
      ...numbers.map(({ label, value }) => ({ label: `number ${label}`, json: value })),
      { label: 'true', json: true },
      { label: 'false', json: false },
      { label: 'null', json: null },
      { label: 'empty array', json: [] },
      { label: 'array of a string', json: ['x'] },
      { label: 'array of NUL', json: ['\u0000'] },
      { label: 'empty object', json: {} },
      { label: 'object', json: { a: 1 } },
      { label: '__proto__ object', json: JSON.parse('{"__proto__":{"polluted":true}}') as unknown },
    ];
  }
  if (location === 'header') {
    // A header value cannot carry control characters or non-Latin-1 text on the wire.
    return strings
      .filter(({ text }) => /^[\u0020-\u007e]*$/.test(text))
      .map(({ label, text }) => ({ label, header: text }))
      .concat([{ label: 'Latin-1 bytes', header: 'caf\u00e9' }]);
  }
  return [
    ...strings.map(({ label, text }) => ({ label, raw: encode(text) })),
    ...numbers.map(({ label, value }) => ({ label: `number ${label}`, raw: encode(String(value)) })),
    ...RAW_URL_VALUES,
  ];
}

/** Random values for one target, drawn from `seed`. */
function randomValues(location: ParameterObject['in'] | 'body', seed: number, count: number): HostileValue[] {
  if (count <= 0) return [];
  if (location === 'body') {
    const values = fc.sample(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.jsonValue({ maxDepth: 3 }),
        fc.double(),
        fc.integer(),
      ),
      { seed, numRuns: count },
    );
    return values.map((json) => ({ label: 'random', json }));
  }
  const bytes = fc.sample(fc.uint8Array({ maxLength: 24 }), { seed, numRuns: count });
  return bytes.map((array) => ({
    label: 'random bytes',
    raw: [...array].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
  }));
}

// ------------------------------------------------------------------------------------------------ valid values

/** A valid value of a schema, for the parameters and properties not under test. */
export function exampleOf(schema: SchemaObject | undefined): unknown {
  if (!schema) return 'x';
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined && schema.default !== null) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const types = typesOf(schema).filter((type) => type !== 'null');
  if (schema.format === 'uuid') return randomUUID();
  if (schema.format === 'date-time') return new Date().toISOString();
  switch (types[0]) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(schema.items));
    case 'object': {
      const object: Record<string, unknown> = {};
      for (const name of schema.required ?? []) object[name] = exampleOf(schema.properties?.[name]);
      return object;
    }
    default:
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

// ------------------------------------------------------------------------------------------------ the run

interface Target {
  name: string;
  location: ParameterObject['in'] | 'body' | 'whole body' | 'unknown query parameter';
  values: HostileValue[];
  /** Documented as `format: date-time`: a timestamp without a zone, or no date at all, must be refused. */
  dateTime?: boolean;
}

function targetsOf(operation: FuzzOperation, seed: number, randomPerTarget: number): Target[] {
  const targets: Target[] = [];
  let n = 0;
  const seedOf = () => seed + 7919 * ++n;
  for (const parameter of operation.parameters) {
    if (parameter.in === 'cookie') continue;
    targets.push({
      name: parameter.name,
      location: parameter.in,
      dateTime: parameter.schema?.format === 'date-time',
      values: [
        ...hostileValues(parameter.schema, parameter.in),
        ...(parameter.in === 'header' ? [] : randomValues(parameter.in, seedOf(), randomPerTarget)),
      ],
    });
  }
  for (const [name, schema] of Object.entries(operation.body?.properties ?? {})) {
    targets.push({
      name,
      location: 'body',
      dateTime: schema.format === 'date-time',
      values: [...hostileValues(schema, 'body'), ...randomValues('body', seedOf(), randomPerTarget)],
    });
  }
  if (operation.body) {
    targets.push({
      name: '(body)',
      location: 'whole body',
      values: [
        { label: 'array body', raw: '[]' },
        { label: 'string body', raw: '"x"' },
        { label: 'null body', raw: 'null' },
        { label: '__proto__ key', raw: '{"__proto__":{"polluted":true}}' },
        { label: 'constructor.prototype key', raw: '{"constructor":{"prototype":{"polluted":true}}}' },
        { label: 'invalid UTF-8 in a string', raw: '{"x":"a\u00ff"}' },
        { label: 'duplicate keys', raw: '{"a":1,"a":2}' },
      ],
    });
  }
  // Reads only: an unknown parameter on a request that changes something (DELETE /api/session) would just do it.
  if (operation.method === 'GET') {
    targets.push({
      name: 'unknownParameter',
      location: 'unknown query parameter',
      values: [
        { label: 'NUL', raw: 'x%00y' },
        { label: 'lone surrogate, UTF-8 encoded', raw: '%ED%A0%80' },
        { label: '__proto__', raw: '1' },
      ],
    });
  }
  return targets;
}

interface BuiltRequest {
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

function build(options: FuzzOptions, operation: FuzzOperation, target: Target, value: HostileValue): BuiltRequest {
  let path = operation.path;
  const query: string[] = [];
  const headers: Record<string, string> = { ...options.headers, ...options.credentials(operation.security, operation) };
  for (const parameter of operation.parameters) {
    const isTarget = target.name === parameter.name && target.location === parameter.in;
    if (parameter.in === 'path') {
      const valid = options.pathValue?.(parameter.name, operation) ?? String(exampleOf(parameter.schema));
      path = path.replace(`{${parameter.name}}`, isTarget ? (value.raw ?? '') : encode(valid));
    } else if (parameter.in === 'query' && isTarget) {
      query.push(`${encode(parameter.name)}=${value.raw ?? ''}`);
    } else if (parameter.in === 'header') {
      if (isTarget) headers[parameter.name.toLowerCase()] = value.header ?? '';
      else if (parameter.required) headers[parameter.name.toLowerCase()] = String(exampleOf(parameter.schema));
    }
  }
  if (target.location === 'unknown query parameter') {
    query.push(value.label === '__proto__' ? `__proto__[polluted]=${value.raw}` : `fuzzUnknown=${value.raw}`);
  }
  let body: string | Buffer | undefined;
  if (operation.body) {
    headers['content-type'] = 'application/json';
    if (target.location === 'whole body') {
      body = value.label.startsWith('invalid UTF-8') ? Buffer.from('{"x":"a\xff"}', 'latin1') : value.raw;
    } else {
      const valid = options.body?.(operation) ?? (exampleOf(operation.body) as Record<string, unknown>);
      const object: Record<string, unknown> = { ...valid };
      if (target.location === 'body')
        Object.defineProperty(object, target.name, { value: value.json, enumerable: true });
      body = JSON.stringify(object);
    }
  }
  return { path: query.length ? `${path}?${query.join('&')}` : path, headers, body };
}

const EXCERPT = 64;
const ZONELESS_OR_IMPOSSIBLE = new Set(['timestamp without a zone', 'bare date', 'impossible date', 'year 0']);

/** Runs the tier: every target of every operation with each of its values. */
export async function runOpenApiFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const url = new URL(options.baseUrl);
  const pool = new Pool(url.origin, { connections: 1, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const report: FuzzReport = {
    operations: [],
    skipped: [],
    targets: 0,
    requests: 0,
    statuses: {},
    findings: [],
    milliseconds: 0,
    byOperation: {},
  };
  try {
    for (const operation of operationsOf(options.document)) {
      if (options.skip?.[operation.key]) {
        report.skipped.push(`${operation.key}: ${options.skip[operation.key]}`);
        continue;
      }
      report.operations.push(operation.key);
      const operationStarted = Date.now();
      const requestsBefore = report.requests;
      const mutating = MUTATING.has(operation.method.toLowerCase());
      let before = mutating ? JSON.stringify(await options.snapshot(operation)) : '';
      for (const target of targetsOf(operation, options.seed, options.randomPerTarget)) {
        report.targets += 1;
        for (const value of target.values) {
          const request = build(options, operation, target, value);
          let status: number;
          let text: string;
          let contentType: string;
          try {
            const response = await pool.request({
              method: operation.method as 'GET',
              path: request.path,
              headers: request.headers,
              body: request.body,
            });
            text = await response.body.text();
            status = response.statusCode;
            contentType = String(response.headers['content-type'] ?? '');
          } catch (error) {
            // No answer at all (a timeout, a connection closed without one): a finding, and on to the next value.
            status = 0;
            text = String((error as { code?: string }).code ?? error);
            contentType = '';
          }
          report.requests += 1;
          report.statuses[status] = (report.statuses[status] ?? 0) + 1;
          const problems = status === 0 ? ['no answer'] : judge(status, contentType, text, target, value);
          if (mutating && status < 300) {
            await options.afterSuccess?.(operation);
            before = JSON.stringify(await options.snapshot(operation));
          } else if (mutating && status >= 400) {
            const after = JSON.stringify(await options.snapshot(operation));
            if (after !== before) {
              problems.push('a refused request changed stored data');
              before = after;
            }
          }
          for (const problem of problems) {
            report.findings.push({
              operation: operation.key,
              target: `${target.location} ${target.name}`,
              value: value.label,
              status,
              problem: `${problem}: ${excerpt(text)}`,
            });
          }
        }
      }
      report.byOperation[operation.key] = {
        requests: report.requests - requestsBefore,
        milliseconds: Date.now() - operationStarted,
      };
    }
  } finally {
    await pool.close();
  }
  report.milliseconds = Date.now() - started;
  return report;
}

function judge(status: number, contentType: string, text: string, target: Target, value: HostileValue): string[] {
  const problems: string[] = [];
  if (status >= 500) problems.push(`answered ${status}`);
  if (target.dateTime && status < 400 && ZONELESS_OR_IMPOSSIBLE.has(value.label)) {
    problems.push('accepted a timestamp without a zone or an impossible date');
  }
  if (status < 400) return problems;
  if (!contentType.startsWith('application/problem+json')) {
    problems.push(`a refusal of type ${contentType || 'none'}`);
    return problems;
  }
  let problem: { status?: number; detail?: string; errors?: Array<{ field?: string }> };
  try {
    problem = JSON.parse(text) as typeof problem;
  } catch {
    problems.push('a problem that is not JSON');
    return problems;
  }
  if (problem.status !== status) problems.push(`a problem whose status is not ${status}`);
  if (status === 400 && !['whole body', 'header'].includes(target.location)) {
    const named =
      problem.errors?.some(({ field }) => field === target.name || field?.startsWith(`${target.name}.`)) ||
      (problem.detail ?? '').includes(target.name) ||
      // The router refuses a path it cannot decode before it knows the route, so it names the URL instead.
      (target.location === 'path' && /request URL/.test(problem.detail ?? '')) ||
      (target.location === 'unknown query parameter' && !!problem.errors?.length);
    if (!named) problems.push(`a 400 that does not name ${target.name}`);
  }
  const sent = value.json ?? value.raw ?? value.header;
  if (typeof sent === 'string' && sent.length > EXCERPT && text.includes(sent.slice(0, EXCERPT + 1))) {
    problems.push('echoes more than a short excerpt of the input');
  }
  return problems;
}

function excerpt(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The seed of this run: FUZZ_SEED, else the fixed one CI uses (the same requests every run). */
export function fuzzSeed(): number {
  const seed = Number(process.env.FUZZ_SEED ?? 20261128);
  if (!Number.isSafeInteger(seed)) throw new Error('FUZZ_SEED must be an integer');
  return seed;
}

/** Random values per target besides the catalogue: FUZZ_RANDOM_PER_TARGET, default 4 (the suite's budget). */
export function fuzzRandomPerTarget(): number {
  return Number(process.env.FUZZ_RANDOM_PER_TARGET ?? 4);
}

/** The fuzz test's time limit: FUZZ_TIMEOUT_MS (set by `npm run fuzz:long`), default two minutes. */
export function fuzzTimeoutMs(): number {
  return Number(process.env.FUZZ_TIMEOUT_MS ?? 120_000);
}
