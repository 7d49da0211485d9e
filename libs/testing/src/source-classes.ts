import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyClass = abstract new (...args: any[]) => unknown;

/**
 * Every class exported by the files under `dir` (recursively) whose names end in `suffix` that extends `base`: e.g.
 * an app's feature exceptions (`.exception.ts`, DomainException), to check that its problem tables answer each.
 */
export async function exportedSubclassesOf<Base extends AnyClass>(
  base: Base,
  dir: string,
  suffix: string,
): Promise<Base[]> {
  const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith(suffix)).sort();
  const found: Base[] = [];
  for (const file of files) {
    const exports = (await import(join(dir, file))) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      if (typeof value === 'function' && value !== base && value.prototype instanceof base) found.push(value as Base);
    }
  }
  return found;
}
