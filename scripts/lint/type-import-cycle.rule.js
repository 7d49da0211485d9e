// ESLint rule `local/no-type-import-cycle`: no import cycle that goes through a type-only import. import-x/no-cycle
// leaves those out (they are erased at run time), but such a cycle still ties two modules together: the one that
// should be the base (a message contract, a view) knows the one built on it. Each such cycle is reported at its
// type-only import(s); cycles of value imports alone are import-x/no-cycle's.
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';

/** @param {{ resolve(source: string, file: string): { found: boolean, path?: string | null } }} resolver */
export function typeImportCycleRule(resolver) {
  /** @type {Map<string, { mtimeMs: number, deps: string[] }>} */
  const graph = new Map();

  /** The repository file `source` names from `file`; undefined for a package or a built-in. */
  function resolve(source, file) {
    if (!source.startsWith('.') && !source.startsWith('#')) return undefined;
    const resolved = resolver.resolve(source, file);
    return resolved.found && resolved.path && !resolved.path.includes('/node_modules/') ? resolved.path : undefined;
  }

  /** What `file` imports (type-only imports too), as it is on disk now. */
  function depsOf(file) {
    let mtimeMs;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return [];
    }
    const known = graph.get(file);
    if (known?.mtimeMs === mtimeMs) return known.deps;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const deps = [...new Set(importedFiles.map((i) => resolve(i.fileName, file)).filter(Boolean))];
    graph.set(file, { mtimeMs, deps });
    return deps;
  }

  /** The shortest chain of imports from `start` to `goal`, both included, or undefined. */
  function chain(start, goal) {
    const cameFrom = new Map([[start, undefined]]);
    const queue = [start];
    while (queue.length > 0) {
      const file = queue.shift();
      if (file === goal) {
        const path = [];
        for (let at = goal; at !== undefined; at = cameFrom.get(at)) path.unshift(at);
        return path;
      }
      for (const dep of depsOf(file)) {
        if (!cameFrom.has(dep)) {
          cameFrom.set(dep, file);
          queue.push(dep);
        }
      }
    }
    return undefined;
  }

  const isTypeOnly = (node) =>
    node.importKind === 'type' ||
    node.exportKind === 'type' ||
    (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));

  return {
    meta: {
      type: 'problem',
      docs: { description: 'Disallow import cycles that go through a type-only import' },
      schema: [],
      messages: { cycle: 'Import cycle through a type-only import: {{path}}' },
    },
    create(context) {
      const file = context.filename;
      const check = (node) => {
        if (!node.source || !isTypeOnly(node)) return;
        const target = resolve(node.source.value, file);
        const back = target && chain(target, file);
        if (!back) return;
        const path = [file, ...back].map((f) => relative(context.cwd, f)).join(' → ');
        context.report({ node, messageId: 'cycle', data: { path } });
      };
      return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
    },
  };
}
