import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

/** One finding of `redocly lint`, as "severity rule at pointer: message". */
export type LintFinding = string;

interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

/**
 * Lints an OpenAPI document with Redocly CLI and the repository's redocly.yaml (the `recommended` rules), and
 * returns every error and warning. Runs offline: no telemetry, no update check.
 */
export async function lintOpenApi(document: unknown): Promise<LintFinding[]> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const args = [REDOCLY, 'lint', file, '--format=json', `--config=${join(ROOT, 'redocly.yaml')}`];
    // Exit code 1 means "found errors": the report on stdout says which.
    const { stdout } = await promisify(execFile)(process.execPath, args, {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 60_000,
    }).catch((error: { code?: unknown; stdout?: string }) => {
      if (error.code === 1 && error.stdout) return { stdout: error.stdout };
      throw error;
    });
    const report = JSON.parse(stdout) as RedoclyReport;
    const findings = report.problems
      .filter((problem) => problem.severity === 'error' || problem.severity === 'warn')
      .map(
        (problem) =>
          `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`,
      );
    if (findings.length !== report.totals.errors + report.totals.warnings)
      throw new Error(`redocly lint: ${findings.length} findings listed, totals say otherwise: ${stdout}`);
    return findings;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
