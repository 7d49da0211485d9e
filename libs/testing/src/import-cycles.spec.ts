import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The lint's import-cycle checks (eslint.config.js: `import-x/no-cycle`, `local/no-type-import-cycle`), run as
// `npx eslint` runs them.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ALIASES = ['domain', 'platform', 'messaging', 'persistence', 'testing'];

/** The rules each file broke, as `<rule> at <line>`. */
function eslint(...files: string[]): { code: number | null; problems: Record<string, string[]> } {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/eslint/bin/eslint.js'), '--format', 'json', ...files],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  const results = JSON.parse(run.stdout) as { filePath: string; messages: { ruleId: string; line: number }[] }[];
  const problems = Object.fromEntries(
    results.map((r) => [r.filePath.split('/').pop(), r.messages.map((m) => `${m.ruleId} at ${m.line}`)]),
  );
  return { code: run.status, problems };
}

describe('the import-cycle lint', () => {
  let dir: string;

  beforeAll(async () => {
    // Inside the repository, so that its ESLint config applies; an alias of the fixture's own, resolved as the
    // repository's are (package.json `imports`, condition `development`).
    dir = await mkdtemp(join(ROOT, 'libs/testing/.import-cycle-fixture-'));
    const imports = { '#fixture-b': { development: './b.ts', default: './dist/b.js' } };
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module', imports }));
    await writeFile(join(dir, 'a.ts'), "import { b } from '#fixture-b';\n\nexport const a = (): number => b() + 1;\n");
    await writeFile(join(dir, 'b.ts'), "import { a } from './a.js';\n\nexport const b = (): number => a() - 1;\n");
    await writeFile(join(dir, 'c.ts'), "import { a } from './a.js';\n\nexport const c = (): number => a();\n");
    // A view and the document class that implements it, importing each other's types only (as session.doc.ts and
    // session.controller.ts did), and a value import whose way back is a type-only one (messages.ts, amqp.client.ts).
    await writeFile(
      join(dir, 'view.ts'),
      "import type { Doc } from './doc.js';\n\nexport type View = Pick<Doc, 'x'>;\n",
    );
    await writeFile(
      join(dir, 'doc.ts'),
      "import { type View } from './view.js';\n\nexport class Doc implements View {\n  x = 1;\n}\n",
    );
    await writeFile(
      join(dir, 'client.ts'),
      "import { HEADER } from './contract.js';\n\nexport class Client {\n  header = HEADER;\n}\n",
    );
    await writeFile(
      join(dir, 'contract.ts'),
      "import type { Client } from './client.js';\n\nexport const HEADER = 'x';\nexport const use = (client: Client) => client.header;\n",
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('fails on two files that import each other, one of them through an alias', () => {
    const run = eslint(join(dir, 'a.ts'), join(dir, 'b.ts'));
    expect(run.problems).toEqual({ 'a.ts': ['import-x/no-cycle at 1'], 'b.ts': ['import-x/no-cycle at 1'] });
    expect(run.code).toBe(1);
  });

  it('fails on a cycle of type-only imports, at each of them', () => {
    const run = eslint(join(dir, 'view.ts'), join(dir, 'doc.ts'));
    expect(run.problems).toEqual({
      'view.ts': ['local/no-type-import-cycle at 1'],
      'doc.ts': ['local/no-type-import-cycle at 1'],
    });
  });

  it('fails on a value import whose way back is a type-only import, at the type-only one', () => {
    const run = eslint(join(dir, 'client.ts'), join(dir, 'contract.ts'));
    expect(run.problems).toEqual({ 'client.ts': [], 'contract.ts': ['local/no-type-import-cycle at 1'] });
    expect(run.code).toBe(1);
  });

  it('passes a file that only imports into the cycle', () => {
    const run = eslint(join(dir, 'c.ts'));
    expect(run.problems).toEqual({ 'c.ts': [] });
    expect(run.code).toBe(0);
  });

  it("resolves the repository's aliases to the libraries' sources", async () => {
    const { importResolver } = (await import(join(ROOT, 'eslint.config.js'))) as {
      importResolver: { resolve(source: string, file: string): { found: boolean; path?: string | null } };
    };
    const from = join(ROOT, 'apps/webhook-config/src/main.ts');
    for (const alias of ALIASES)
      expect(importResolver.resolve(`#${alias}`, from)).toEqual({
        found: true,
        path: join(ROOT, `libs/${alias}/src/index.ts`),
      });
    expect(importResolver.resolve('./app.module.js', from)).toEqual({
      found: true,
      path: join(ROOT, 'apps/webhook-config/src/app.module.ts'),
    });
  });
});
