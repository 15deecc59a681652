import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';

/**
 * Where every chaos run leaves each scenario's figures (ignored by git, like every test output):
 * a test run never touches a tracked file. docs/RELIABILITY.md is written from these files only
 * by `npm run reliability:report`, after a full `npm run test:chaos`.
 */
export const RESULTS_DIR = resolve(__dirname, '../reports/chaos');
const DOC = resolve(__dirname, '../docs/RELIABILITY.md');
/** The run whose figures the page publishes: the full suite, with the 300 s soak. */
export const FULL_RUN_COMMAND = 'npm run test:chaos';

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
    ...Object.entries(r.phases).map(
      ([name, p]) => `| ${cell(name)} | ${p.requests} | ${cell(outcomes(p.outcomes))} | ${p.maxLatencyMs} |`,
    ),
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

/** The history checker's verdict and figures per scenario (its `history: ...` verdicts). */
function historyTable(results: ScenarioResult[]): string {
  const judged = results.filter((r) => r.verdicts.some((v) => v.check.startsWith('history: ')));
  if (!judged.length) return '';
  const rows = judged.map((r) => {
    const rules = r.verdicts.filter((v) => v.check.startsWith('history: ') && v.check !== 'history: judged');
    const broken = rules.filter((v) => !v.ok).map((v) => v.check.slice('history: '.length));
    const figures = r.verdicts.find((v) => v.check === 'history: judged')?.detail ?? '';
    return `| ${r.id} | ${broken.length ? `**${broken.length} of ${rules.length} broken**: ${cell(broken.join(', '))}` : `${rules.length}/${rules.length} hold`} | ${cell(figures)} |`;
  });
  return ['## History checks', '', '| scenario | checker rules | judged |', '|---|---|---|', ...rows, '', ''].join(
    '\n',
  );
}

/** Each scenario's latest figures in reports/chaos/, by id. */
export function readResults(dir = RESULTS_DIR): ScenarioResult[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(resolve(dir, f), 'utf8')) as ScenarioResult);
}

/** Why these results cannot be published, if they cannot: none, or some not from a full run. */
export function unpublishable(results: ScenarioResult[]): string | undefined {
  if (!results.length)
    return `no results in ${relative(process.cwd(), RESULTS_DIR) || RESULTS_DIR}: run \`${FULL_RUN_COMMAND}\` first`;
  const partial = results.filter((r) => r.command !== FULL_RUN_COMMAND);
  if (!partial.length) return undefined;
  const list = partial.map((r) => `${r.id} (${r.command})`).join(', ');
  return `not from a full \`${FULL_RUN_COMMAND}\`: ${list}; run it again (or pass --any to publish them anyway)`;
}

/** docs/RELIABILITY.md from the results given (the figures of each scenario's last run). */
export function renderReliability(results: ScenarioResult[] = readResults()): string {
  const head = readFileSync(resolve(__dirname, 'chaos-report.head.md'), 'utf8');
  const table = [
    '| scenario | result | requests | outcomes | faults | recovery | invariants | ran |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map((r) => {
      const recovery = Object.entries(r.recovery)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ');
      const verdicts = `${r.verdicts.filter((v) => v.ok).length}/${r.verdicts.length} hold`;
      return `| [${r.id}](#${r.id.toLowerCase()}-${r.title
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(
          / /g,
          '-',
        )}) ${cell(r.title)} | ${r.passed ? 'PASS' : '**FAIL**'} | ${r.requests} | ${cell(outcomes(r.outcomes))} | ${cell(r.faults.length + ' injected')} | ${cell(recovery)} | ${verdicts} | ${r.ranAt.slice(0, 16)}Z, ${r.durationS} s |`;
    }),
  ];
  const doc = `${head.trimEnd()}\n\n${historyTable(results)}## Last run\n\n${table.join('\n')}\n\n## Scenarios in detail\n\n${results.map(section).join('\n\n')}\n`;
  writeFileSync(DOC, doc);
  return DOC;
}

function main(): void {
  const results = readResults();
  const problem = unpublishable(results);
  if (problem && !(results.length && process.argv.includes('--any'))) {
    console.error(`reliability:report: ${problem}`);
    process.exit(1);
  }
  console.log(`wrote ${renderReliability(results)} from ${results.length} scenario result(s)`);
}

if (require.main === module) main();
