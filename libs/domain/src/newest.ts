/** The last element of a tuple type. */
export type Newest<T extends readonly unknown[]> = T extends readonly [...unknown[], infer L] ? L : never;

/**
 * The newest of a list of versions written oldest first: its last element, typed as that literal, so that a list is
 * the only place that names its newest version.
 */
export function newest<const T extends readonly [unknown, ...unknown[]]>(versions: T): Newest<T> {
  return versions[versions.length - 1] as Newest<T>;
}

/**
 * A frozen object with one entry per version of a list, in the list's order: a registry derived from the list, so that
 * a version appended to it has its entry. `M` types each version's entry, as derived from the same source as `entry`
 * (the compiler cannot follow a version through `entry`; the specs check what each version's entry returns).
 */
export function perVersion<const V extends string, M extends { readonly [K in V]: unknown }>(
  versions: readonly V[],
  entry: (version: V) => unknown,
): Readonly<M> {
  return Object.freeze(Object.fromEntries(versions.map((version) => [version, entry(version)])) as M);
}
