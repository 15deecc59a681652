/**
 * The monitoring/ folder as CI checks it: Prometheus' scrape config and alert rules pass
 * `promtool check`, the alert rules' own unit tests pass `promtool test rules`, and every metric
 * the rules and the Grafana dashboard query is one the app exports.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePromtool } from '../../scripts/infra/promtool';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, injectSender } from '../support/api-client';

jest.setTimeout(300_000); // a fresh machine downloads the prometheus package first

const PROMETHEUS_DIR = join(__dirname, '..', '..', 'monitoring', 'prometheus');
const DASHBOARD = join(__dirname, '..', '..', 'monitoring', 'grafana', 'dashboards', 'flash-sale.json');
const PROMQL_WORDS = new Set(['sum', 'by', 'without', 'rate', 'increase', 'histogram_quantile', 'max', 'min', 'avg', 'or', 'and', 'unless', 'on', 'ignoring']);
// Series Prometheus makes itself, not the app.
const SCRAPE_SERIES = new Set(['up']);

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync(ensurePromtool(), args, { cwd: PROMETHEUS_DIR, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Metric names in PromQL expressions (label matchers, grouping labels and functions removed). */
function metricNames(expressions: string[]): Set<string> {
  const names = new Set<string>();
  for (const expr of expressions) {
    const bare = expr.replace(/\{[^}]*\}/g, ' ').replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ');
    for (const word of bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []) {
      if (!PROMQL_WORDS.has(word) && !SCRAPE_SERIES.has(word)) names.add(word.replace(/_(bucket|sum|count)$/, ''));
    }
  }
  return names;
}

function ruleExpressions(): string[] {
  const text = readFileSync(join(PROMETHEUS_DIR, 'alerts.yml'), 'utf8');
  // expr: one line, or a folded block (>-) whose lines are indented below it.
  const expressions: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const match = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!match) return;
    if (match[2] !== '>-') return void expressions.push(match[2]);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j].search(/\S/) > match[1].length; j++) block.push(lines[j].trim());
    expressions.push(block.join(' '));
  });
  return expressions;
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { targets?: { expr: string }[] }[] };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

describe('monitoring configuration', () => {
  it('passes promtool check config (scrape config and the rule files it names)', () => {
    const result = promtool('check', 'config', 'prometheus.yml');
    expect(result).toMatchObject({ status: 0 });
  });

  it('passes promtool check rules', () => {
    const result = promtool('check', 'rules', 'alerts.yml');
    expect(result.output).toMatch(/SUCCESS: 7 rules found/);
    expect(result.status).toBe(0);
  });

  it('raises each alert on the series that should raise it (promtool test rules)', () => {
    const result = promtool('test', 'rules', 'alerts.test.yml');
    expect(result.output).toMatch(/SUCCESS/);
    expect(result.status).toBe(0);
  });

  it('alerts on deadline misses, lost locks, unreachable dependencies and instances down', () => {
    const text = readFileSync(join(PROMETHEUS_DIR, 'alerts.yml'), 'utf8');
    for (const alert of ['PurchaseDeadlineMissed', 'LockLost', 'DependencyUnavailable', 'InstanceDown']) expect(text).toContain(`alert: ${alert}\n`);
  });

  describe('against the running app', () => {
    let harness: AppHarness;
    beforeAll(async () => {
      harness = await startApp();
    });
    afterAll(async () => harness?.close());

    it('exports every metric the alert rules and the dashboard query', async () => {
      const api = new Api(injectSender(harness.app));
      const product = await api.createProduct({ stock: 1 });
      expect((await api.purchase(product.id, 'metrics-buyer')).status).toBe(201);
      const exported = new Set((await api.send({ method: 'GET', url: '/metrics' })).raw.match(/^# HELP (\S+)/gm)?.map((l) => l.slice(7)));
      const queried = metricNames([...ruleExpressions(), ...dashboardExpressions()]);
      expect(queried.size).toBeGreaterThan(10);
      expect([...queried].filter((name) => !exported.has(name))).toEqual([]);
    });
  });
});
