/** The last element of a tuple type. */
export type Newest<T extends readonly unknown[]> = T extends readonly [...unknown[], infer L] ? L : never;

/**
 * The newest of a list of versions written oldest first: its last element, typed as that literal, so that a list is
 * the only place that names its newest version.
 */
export function newest<const T extends readonly [unknown, ...unknown[]]>(versions: T): Newest<T> {
  return versions[versions.length - 1] as Newest<T>;
}
