import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The Prometheus rules file, its unit tests and the Grafana dashboard, all over the apps' /metrics. */
export const MONITORING_FILES = {
  rules: `${ROOT}deploy/prometheus/alerts.yaml`,
  rulesTests: `${ROOT}deploy/prometheus/alerts.test.yaml`,
  dashboard: `${ROOT}deploy/grafana/payments-dashboard.json`,
  runbook: `${ROOT}docs/operations.md`,
};

/**
 * Which app exposes the metrics whose names begin so. Every metric the rules and the dashboard query must begin with
 * one of these; `*` is every app (Node's default metrics and the HTTP requests).
 */
export const METRIC_PREFIXES: Record<string, readonly string[]> = {
  '*': ['http_', 'process_', 'nodejs_'],
  'transaction-api': ['outbox_'],
  'webhook-config': ['webhooks_disabled'],
  'webhook-dispatcher': ['webhook_', 'webhooks_failing', 'webhooks_last_attempt_failed'],
};

export interface PromtoolRun {
  code: number | null;
  /** Everything promtool printed, stdout and stderr. */
  output: string;
}

/** Runs promtool (the Debian package `prometheus`) with `args`, writing `input` to its stdin. */
export function promtool(args: string[], input = ''): Promise<PromtoolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(input);
  });
}

interface RulesFile {
  groups: {
    name: string;
    rules: { alert?: string; record?: string; expr: string; annotations?: Record<string, string> }[];
  }[];
}

interface DashboardPanel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: DashboardPanel[];
}

export async function alertRules(): Promise<RulesFile['groups'][number]['rules']> {
  const file = parse(await readFile(MONITORING_FILES.rules, 'utf8')) as RulesFile;
  return file.groups.flatMap((group) => group.rules);
}

/** The dashboard's panels, those inside rows included. */
export async function dashboardPanels(): Promise<DashboardPanel[]> {
  const dashboard = JSON.parse(await readFile(MONITORING_FILES.dashboard, 'utf8')) as { panels: DashboardPanel[] };
  return dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

/** Every PromQL expression of the alert rules and of the dashboard's panels. */
export async function monitoringExpressions(): Promise<string[]> {
  const rules = (await alertRules()).map((rule) => rule.expr);
  const panels = (await dashboardPanels()).flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
  return [...rules, ...panels].filter((expr): expr is string => typeof expr === 'string');
}

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or']);
KEYWORDS.add('unless').add('offset').add('inf').add('nan');

/**
 * The metric names a PromQL expression selects: its identifiers outside strings, label matchers (`{…}`), ranges
 * (`[5m]`) and grouping lists (`by (…)`), that are neither functions (followed by `(`) nor keywords.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = [...bare.matchAll(/(?<![\w:.$])([a-zA-Z_:][\w:]*)(?!\s*\(|[\w:])/g)].map((match) => match[1]);
  return [...new Set(names.filter((name) => !KEYWORDS.has(name.toLowerCase())))];
}

/**
 * The series names a scrape exposes, from its `# TYPE` lines: a histogram `x` also as `x_bucket`, `x_sum` and
 * `x_count`, a summary as `x_sum` and `x_count`.
 */
export function exposedNames(scrape: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') names.add(`${name}_bucket`);
    if (type === 'histogram' || type === 'summary') names.add(`${name}_sum`).add(`${name}_count`);
  }
  return names;
}
