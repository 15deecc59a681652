import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const RESULTS_DIR = resolve(__dirname, '../test/chaos/results');
const DOC = resolve(__dirname, '../docs/RELIABILITY.md');

export interface ScenarioResult {
  id: string;
  title: string;
  setup: string;
  ranAt: string;
  command: string;
  durationS: number;
  requests: number;
  outcomes: Record<string, number>;
  phases: Record<string, { requests: number; outcomes: Record<string, number>; maxLatencyMs: number }>;
  maxLatencyMs: number;
  faults: string[];
  recovery: Record<string, number | string>;
  verdicts: { check: string; ok: boolean; detail: string }[];
  passed: boolean;
  extra?: Record<string, unknown>;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const outcomes = (o: Record<string, number>): string =>
  Object.entries(o)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');

function section(r: ScenarioResult): string {
  const lines = [
    `### ${r.id}: ${r.title}`,
    '',
    `${r.passed ? 'PASS' : '**FAIL**'} · ran ${r.ranAt} · ${r.durationS} s · \`${r.command}\``,
    '',
    `Setup: ${r.setup}`,
    '',
    'Faults injected:',
    ...r.faults.map((f) => `- ${f}`),
    '',
    '| phase | requests | outcomes | max latency (ms) |',
    '|---|---|---|---|',
    ...Object.entries(r.phases).map(([name, p]) => `| ${cell(name)} | ${p.requests} | ${cell(outcomes(p.outcomes))} | ${p.maxLatencyMs} |`),
    '',
    '| recovery | value |',
    '|---|---|',
    ...Object.entries(r.recovery).map(([k, v]) => `| ${cell(k)} | ${cell(String(v))} |`),
    '',
    '| invariant / check | verdict | detail |',
    '|---|---|---|',
    ...r.verdicts.map((v) => `| ${cell(v.check)} | ${v.ok ? 'ok' : '**VIOLATED**'} | ${cell(v.detail)} |`),
  ];
  if (r.extra && Object.keys(r.extra).length) lines.push('', '```json', JSON.stringify(r.extra, null, 2), '```');
  return lines.join('\n');
}

/** docs/RELIABILITY.md from test/chaos/results/*.json (the figures of each scenario's last run). */
export function renderReliability(): string {
  const results: ScenarioResult[] = existsSync(RESULTS_DIR)
    ? readdirSync(RESULTS_DIR)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => JSON.parse(readFileSync(resolve(RESULTS_DIR, f), 'utf8')) as ScenarioResult)
    : [];
  const head = readFileSync(resolve(__dirname, 'chaos-report.head.md'), 'utf8');
  const table = [
    '| scenario | result | requests | outcomes | faults | recovery | invariants | ran |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map((r) => {
      const recovery = Object.entries(r.recovery).map(([k, v]) => `${k}: ${v}`).join('; ');
      const verdicts = `${r.verdicts.filter((v) => v.ok).length}/${r.verdicts.length} hold`;
      return `| [${r.id}](#${r.id.toLowerCase()}-${r.title.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')}) ${cell(r.title)} | ${r.passed ? 'PASS' : '**FAIL**'} | ${r.requests} | ${cell(outcomes(r.outcomes))} | ${cell(r.faults.length + ' injected')} | ${cell(recovery)} | ${verdicts} | ${r.ranAt.slice(0, 16)}Z, ${r.durationS} s |`;
    }),
  ];
  const doc = `${head.trimEnd()}\n\n## Last run\n\n${table.join('\n')}\n\n## Scenarios in detail\n\n${results.map(section).join('\n\n')}\n`;
  writeFileSync(DOC, doc);
  return DOC;
}

if (require.main === module) console.log(`wrote ${renderReliability()}`);
