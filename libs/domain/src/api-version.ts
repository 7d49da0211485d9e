/**
 * Versions of the merchant read API (`/v1.0` … the newest) and the registry of transaction renderers, derived from
 * the fields' `since` (`transaction-fields.ts`).
 *
 * Adding a version: append it to {@link API_VERSIONS}; its transaction object has the fields dated at or before it
 * (a new field comes with its own `since`). Everything that names the newest version (the `/v<newest>/…` paths, the
 * OpenAPI document's version, the 404's text) takes {@link LATEST_API_VERSION} (docs/guides.md). Never remove or
 * reorder a version, nor edit a field's `since` — merchants pinned to an old version must keep receiving exactly the
 * same objects.
 */
import { newest, perVersion } from './newest.js';
import type { TransactionRecord } from './record.shapes.js';
import {
  TRANSACTION_FIELDS,
  transactionField,
  transactionFieldsSince,
  type TransactionField,
  type TransactionFieldRow,
  type TransactionFieldsSince,
  type TransactionObjectOf,
} from './transaction-fields.js';
import { transactionRenderer, type TransactionRenderer } from './transaction.renderer.js';

/** Every API version, oldest first. */
export const API_VERSIONS = [
  '1.0',
  '1.1',
  '1.2',
  '1.3',
  '1.4',
  '1.5',
  '1.6',
  '1.7',
  '1.8',
  '1.9',
  '1.10',
  '1.11',
  '1.12',
  '1.13',
  '1.14',
  '1.15',
  '1.16',
  '1.17',
] as const;

/** An API version, e.g. `1.17`. */
export type ApiVersion = (typeof API_VERSIONS)[number];

/** The newest API version: the last of {@link API_VERSIONS}, named nowhere else. */
export const LATEST_API_VERSION = newest(API_VERSIONS);

const apiVersions: ReadonlySet<string> = new Set(API_VERSIONS);

/** Whether `version` is a served API version (exact match: `1.17` yes, `1.017`, `v1.17` or `1.18` no). */
export function isApiVersion(version: unknown): version is ApiVersion {
  return typeof version === 'string' && apiVersions.has(version);
}

/** Every field is dated by a served API version (`since.api`): a version missing from the list fails to compile. */
const SINCE_IS_SERVED: [TransactionFieldRow['since']['api']] extends [ApiVersion] ? true : false = true;
void SINCE_IS_SERVED;

/** The public transaction object of API version `V`: the fields dated at or before it (`since.api`). */
export type PublicTransaction<V extends ApiVersion = ApiVersion> = V extends ApiVersion
  ? TransactionObjectOf<TransactionFieldsSince<'api', typeof API_VERSIONS, V>>
  : never;

/**
 * The fields of the transaction object of each API version: those of `TRANSACTION_FIELDS` whose `since.api` is at or
 * before it in {@link API_VERSIONS}, in the table's order (derived: no version is named here but in the list).
 */
export const API_TRANSACTION_FIELDS = perVersion<ApiVersion, { [V in ApiVersion]: readonly TransactionField[] }>(
  API_VERSIONS,
  (version) => transactionFieldsSince(TRANSACTION_FIELDS, 'api', API_VERSIONS, version),
);

/**
 * The transaction renderer of each API version, of its {@link API_TRANSACTION_FIELDS}: the versions with the same
 * fields share one renderer (today 1.0–1.16: the first fields; 1.17: and `3dsecure`).
 */
export const TRANSACTION_RENDERERS = perVersion<
  ApiVersion,
  { [V in ApiVersion]: TransactionRenderer<PublicTransaction<V>> }
>(API_VERSIONS, (version) => transactionRenderer(API_TRANSACTION_FIELDS[version]));

/** The first API version whose transaction object has `3dsecure` (always, an object or null). */
export const THREE_D_SECURE_SINCE_API_VERSION: ApiVersion = transactionField('3dsecure').since.api;

/**
 * Render the public transaction object of an API version: the fields of `TRANSACTION_FIELDS`
 * (`transaction-fields.ts`) dated at or before it, in their order.
 *
 * @throws {RangeError} for a version that is not in {@link API_VERSIONS} (check with {@link isApiVersion} first),
 *   or for an invalid `createdAt`/`updatedAt`.
 */
export function renderTransaction<V extends ApiVersion>(version: V, record: TransactionRecord): PublicTransaction<V> {
  if (!isApiVersion(version)) {
    throw new RangeError(`Unknown API version: ${String(version).slice(0, 20)}`);
  }
  return TRANSACTION_RENDERERS[version](record) as PublicTransaction<V>;
}
