/**
 * Versions of the merchant read API (`/v1.0` … the newest) and the registry of transaction renderers.
 *
 * Adding a version: append it to {@link API_VERSIONS} and add one entry to {@link TRANSACTION_RENDERERS}; everything
 * that names the newest version (the `/v<newest>/…` paths, the OpenAPI document's version, the 404's text) takes
 * {@link LATEST_API_VERSION} (docs/guides.md). Never edit an existing entry — merchants pinned to an old version must
 * keep receiving exactly the same objects.
 */
import type { TransactionRecord } from './record.shapes.js';
import { renderTransactionBase, renderTransactionWithThreeDSecure } from './transaction.renderer.js';
import { newest } from './newest.js';

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

/** The transaction renderer of each API version. 1.0–1.16: base object; 1.17: base + `3dsecure`. */
export const TRANSACTION_RENDERERS = Object.freeze({
  '1.0': renderTransactionBase,
  '1.1': renderTransactionBase,
  '1.2': renderTransactionBase,
  '1.3': renderTransactionBase,
  '1.4': renderTransactionBase,
  '1.5': renderTransactionBase,
  '1.6': renderTransactionBase,
  '1.7': renderTransactionBase,
  '1.8': renderTransactionBase,
  '1.9': renderTransactionBase,
  '1.10': renderTransactionBase,
  '1.11': renderTransactionBase,
  '1.12': renderTransactionBase,
  '1.13': renderTransactionBase,
  '1.14': renderTransactionBase,
  '1.15': renderTransactionBase,
  '1.16': renderTransactionBase,
  '1.17': renderTransactionWithThreeDSecure,
}) satisfies { readonly [V in ApiVersion]: (record: TransactionRecord) => object };

/** The first API version whose transaction object has `3dsecure` (always, an object or null). */
export const THREE_D_SECURE_SINCE_API_VERSION: ApiVersion = API_VERSIONS.find(
  (version) => TRANSACTION_RENDERERS[version] === renderTransactionWithThreeDSecure,
)!;

/** The public transaction object of API version `V`. */
export type PublicTransaction<V extends ApiVersion = ApiVersion> = ReturnType<(typeof TRANSACTION_RENDERERS)[V]>;

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
