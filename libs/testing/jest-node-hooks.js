// Jest loads `globalSetup` through Node's own require(), not through its ESM runtime, so neither
// moduleNameMapper nor our `.js`-suffixed TypeScript imports apply there. This resolve hook (loaded with
// `node --import`) gives Node the same two rules for files under our source folders:
//   '#domain' etc.          → libs/<name>/src/index.ts
//   './x.js' from a .ts file → './x.ts' when only the .ts exists
// Jest's transformer (swc) then compiles those files as usual.
import { existsSync } from 'node:fs';
import { registerHooks } from 'node:module';

const LIBS = new Set(['domain', 'platform', 'messaging', 'persistence', 'testing']);
const root = new URL('../../', import.meta.url);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL;
    if (parent?.startsWith(root.href) && parent.endsWith('.ts')) {
      if (specifier.startsWith('#') && LIBS.has(specifier.slice(1))) {
        return { url: new URL(`libs/${specifier.slice(1)}/src/index.ts`, root).href, shortCircuit: true };
      }
      if (specifier.startsWith('.') && specifier.endsWith('.js')) {
        const candidate = new URL(specifier.replace(/\.js$/, '.ts'), parent);
        if (existsSync(candidate)) return { url: candidate.href, shortCircuit: true };
      }
    }
    return nextResolve(specifier, context);
  },
});
