import { describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  MONITORING_FILES,
  alertRules,
  dashboardPanels,
  exposedNames,
  metricNames,
  monitoringExpressions,
  promtool,
} from './monitoring.js';

describe('the alert rules (deploy/prometheus)', () => {
  it('pass `promtool check rules`', async () => {
    const run = await promtool(['check', 'rules', MONITORING_FILES.rules]);
    expect(run.code).toBe(0);
    expect(run.output).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('fire on the series of their unit tests, and only there (`promtool test rules`)', async () => {
    const run = await promtool(['test', 'rules', MONITORING_FILES.rulesTests]);
    expect(run.output).toContain('SUCCESS');
    expect(run.code).toBe(0);
  });

  it('each have a summary, a description and a runbook section of their own name in docs/operations.md', async () => {
    const headings = new Set(
      [...(await readFile(MONITORING_FILES.runbook, 'utf8')).matchAll(/^## (\S+)$/gm)].map((m) => m[1].toLowerCase()),
    );
    const rules = await alertRules();
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      expect(rule.annotations).toEqual({
        summary: expect.any(String),
        description: expect.any(String),
        runbook_url: `docs/operations.md#${rule.alert?.toLowerCase()}`,
      });
      expect(headings).toContain(rule.alert?.toLowerCase());
    }
  });
});

describe('the Grafana dashboard (deploy/grafana)', () => {
  it('has a query in each panel but the rows, each valid PromQL (checked as recording rules)', async () => {
    const panels = (await dashboardPanels()).filter((panel) => panel.targets !== undefined);
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) expect(panel.targets?.every((target) => target.expr)).toBe(true);

    // Grafana's own interval variable is not PromQL: the check stands a duration in for it.
    const exprs = panels.flatMap((panel) =>
      panel.targets?.map((target) => target.expr?.replaceAll('$__rate_interval', '5m')),
    );
    const rules = {
      groups: [{ name: 'dashboard', rules: exprs.map((expr, i) => ({ record: `dashboard:panel_${i}`, expr })) }],
    };
    const dir = await mkdtemp(join(tmpdir(), 'dashboard-'));
    try {
      await writeFile(join(dir, 'rules.yaml'), stringify(rules));
      const run = await promtool(['check', 'rules', join(dir, 'rules.yaml')]);
      expect(run.output).toContain(`SUCCESS: ${exprs.length} rules found`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('queries every metric an alert rule uses', async () => {
    const dashboard = new Set(
      (await dashboardPanels()).flatMap((p) => p.targets ?? []).flatMap((t) => metricNames(t.expr ?? '')),
    );
    const rules = (await alertRules()).flatMap((rule) => metricNames(rule.expr));
    expect(rules.filter((name) => !dashboard.has(name))).toEqual([]);
  });
});

describe('metricNames', () => {
  it('finds the selected metrics, not functions, labels, label values, ranges or keywords', () => {
    expect(
      metricNames(
        'sum by (job, le) (rate(http_request_duration_seconds_bucket{status=~"5..", route!~"/x|y"}[5m])) / on (job) ' +
          'group_left max(outbox_events_unpublished offset 5m) > bool 3 unless webhook_in_flight',
      ),
    ).toEqual(['http_request_duration_seconds_bucket', 'outbox_events_unpublished', 'webhook_in_flight']);
  });

  it('finds what the rules and the dashboard query', async () => {
    expect(new Set((await monitoringExpressions()).flatMap(metricNames))).toContain('webhook_queue_messages_ready');
  });
});

describe('exposedNames', () => {
  it("lists a histogram's series names and each other family's name", () => {
    const scrape = [
      '# HELP a_seconds A.',
      '# TYPE a_seconds histogram',
      'a_seconds_bucket{le="1"} 0',
      '# TYPE b_total counter',
      'b_total 1',
    ].join('\n');
    expect([...exposedNames(scrape)].sort()).toEqual([
      'a_seconds',
      'a_seconds_bucket',
      'a_seconds_count',
      'a_seconds_sum',
      'b_total',
    ]);
  });
});
