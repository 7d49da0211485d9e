import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  API_VERSIONS,
  EVENT_KINDS,
  FIRST_TRANSACTION_FIELDS,
  LATEST_API_VERSION,
  LATEST_WEBHOOK_VERSION,
  TRANSACTION_FIELDS,
  WEBHOOK_VERSIONS,
} from '#domain';

/*
 * Issue #33, one definition each: the kinds of event (with their event types), the webhook payload versions, the
 * read-API versions and the transaction's fields are defined in libs/domain (event-kinds.ts, webhook-version.ts,
 * api-version.ts, transaction-fields.ts) and everything else derives from them. This scan fails when a copy creeps
 * back into the code: a hand-written list of kinds, a file naming every kind that is not one of the few that handle
 * each kind on its own (the compiler makes those cover every kind), the newest version written out, or the
 * transaction's fields or columns listed outside the few files that must, a renderer (or anything) keyed by version
 * by hand instead of derived from the fields' `since`. Specs (fixtures: they pin the contract on purpose), the generated
 * ui/types/api.d.ts, benches and migrations up to the one that dropped the list from the database are not scanned.
 * What to change instead: docs/guides.md.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Migrations are history: what they did stays as written. Newer ones are scanned. */
const LAST_UNSCANNED_MIGRATION = 1763803000000;

/**
 * The files that name every kind because they handle each one on its own (a renderer, a schema, a sample per kind),
 * each keyed by a mapped type or a switch over the kinds that fails to compile when a kind is added.
 */
const PER_KIND_FILES = new Set([
  'libs/domain/src/event-kinds.ts', // the definition itself
  'libs/domain/src/webhook-version.ts', // WebhookSubject, the payload renderers
  'libs/domain/src/webhook-schema.ts', // the payload schemas and descriptions
  'libs/domain/src/event-samples.ts', // one sample event of each kind
  'libs/domain/src/webhook-delivery.rules.ts', // the subject of a delivery
  'libs/messaging/src/messages.ts', // the record schema of each category
]);

/** The files that write out the newest read-API or payload version: the lists and the fields' `since`. */
const VERSION_FILES = new Set([
  'libs/domain/src/api-version.ts',
  'libs/domain/src/webhook-version.ts',
  'libs/domain/src/transaction-fields.ts',
]);

/**
 * The files that name every field of the transaction (of its first version) as a key or a string: the table, the
 * types the compiler holds to it, and what is not the transaction object but takes every field of it.
 */
const FIELD_FILES = new Set([
  'libs/domain/src/transaction-fields.ts', // the definition itself
  'libs/domain/src/event-samples.ts', // the sample transaction's values (typed TransactionRecord)
  'apps/transaction-api/src/transaction/transaction.dto.ts', // the platform API's input, validated field by field
  'apps/transaction-api/src/transaction/transaction.service.ts', // the row made of that input
  'apps/transaction-api/src/transaction/transaction.fingerprint.ts', // idempotency: a stored hash, its order frozen
  'libs/domain/test/fixtures.ts', // the specs' records (they pin the contract on purpose)
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist', 'coverage'].includes(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

const scanned = ['apps', 'libs']
  .flatMap(sourceFiles)
  .filter((path) => !/[.-]spec\.ts$/.test(path) && !path.endsWith('.d.ts'))
  .filter((path) => {
    const migration = /\/migrations\/(\d{13})-/.exec(path);
    return !migration || Number(migration[1]) > LAST_UNSCANNED_MIGRATION;
  });

/** A file's code without its comments (roughly: block comments and whole-line `//` comments). */
const code = (path: string) =>
  readFileSync(join(ROOT, path), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

const kinds = EVENT_KINDS.join('|');
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('one definition each (issue #33)', () => {
  it('scans the sources of every app and library', () => {
    expect(scanned.length).toBeGreaterThan(300);
    for (const path of [...PER_KIND_FILES, ...VERSION_FILES, ...FIELD_FILES]) expect(scanned).toContain(path);
  });

  it('no file lists the kinds of event by hand (an array, a union, an SQL ARRAY): they come from EVENT_KINDS', () => {
    const list = new RegExp(`(['"\`])(?:${kinds})\\1\\s*[,|]\\s*(['"\`])(?:${kinds})\\2`);
    expect(scanned.filter((path) => list.test(code(path)))).toEqual([]);
  });

  it('only the per-kind files name every kind, as a string or a key', () => {
    const naming = (path: string) => {
      const text = code(path);
      return EVENT_KINDS.every((kind) => new RegExp(`['"\`]${kind}['"\`]|^\\s*${kind}\\s*:`, 'm').test(text));
    };
    expect(scanned.filter((path) => naming(path) && !PER_KIND_FILES.has(path))).toEqual([]);
  });

  it(`only the version lists write out the newest versions (${LATEST_API_VERSION}, ${LATEST_WEBHOOK_VERSION})`, () => {
    const newest = new RegExp(
      `(?<![\\w.])(?:${escape(LATEST_API_VERSION)}|${escape(LATEST_WEBHOOK_VERSION)})(?![\\w.-]*\\d)|/v${escape(LATEST_API_VERSION)}\\b`,
    );
    const sources = scanned.filter((path) => /^(apps\/[^/]+\/(src|ui)|libs\/[^/]+\/src)\//.test(path));
    expect(sources.filter((path) => newest.test(code(path)) && !VERSION_FILES.has(path))).toEqual([]);
  });

  it('only the field files name every field of the transaction: the rest take them from TRANSACTION_FIELDS', () => {
    const naming = (path: string) => {
      const text = code(path);
      return FIRST_TRANSACTION_FIELDS.every((field) =>
        new RegExp(`['"\`]${field.record}['"\`]|^\\s*${field.record}\\s*[!?]?:`, 'm').test(text),
      );
    };
    expect(scanned.filter((path) => naming(path) && !FIELD_FILES.has(path))).toEqual([]);
  });

  it('no SQL lists the columns of the transaction: the lists come from TRANSACTION_FIELDS', () => {
    const listing = (path: string) => {
      const text = code(path);
      return TRANSACTION_FIELDS.every((field) => new RegExp(`\\b${field.column}\\b`).test(text));
    };
    expect(scanned.filter((path) => listing(path) && path !== 'libs/domain/src/transaction-fields.ts')).toEqual([]);
  });

  it("no file keys anything by read-API or payload version by hand: the registries derive it from the fields' since", () => {
    const versions = [...API_VERSIONS, ...WEBHOOK_VERSIONS];
    const keyedByVersion = (path: string) => {
      const text = code(path);
      const keys = versions.filter((version) =>
        new RegExp(`(?:^|[{,\\s])(['"\`]?)${escape(version)}\\1\\s*:`, 'm').test(text),
      );
      return keys.length >= 2;
    };
    expect(scanned.filter(keyedByVersion)).toEqual([]);
  });

  it('the version files write each version once: in its list, never to pick a renderer', () => {
    const quoted = (version: string) => new RegExp(`['"\`]${escape(version)}['"\`]`, 'g');
    for (const [path, versions] of [
      ['libs/domain/src/api-version.ts', API_VERSIONS],
      ['libs/domain/src/webhook-version.ts', WEBHOOK_VERSIONS],
    ] as const) {
      const text = code(path);
      const written = versions.map((version) => [version, text.match(quoted(version))?.length ?? 0]);
      expect([path, written]).toEqual([path, versions.map((version) => [version, 1])]);
    }
  });
});
