import { CellResult } from './cell-result';
import { GoalCheck } from './goals';
import { cyclesOf, fmt } from './report-format';
import { BenchReport } from './report-types';

const scenarioName = { a: '(a) uncontended', b: '(b) 1 key, 50 workers, 1 process', c: '(c) 1 key, 50 workers, 4 processes' };

export function resultsTable(cells: CellResult[], goals: GoalCheck[]): string {
  const head =
    '| scenario | contender | settings | sections/s | % of limit | wait p50 ms | wait p99 ms | handoff | idle gap p50 ms | hold mean ms | cmds/section (sent) | server cmds/section | overlaps | failed acquires | goals |\n' +
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|';
  const rows = cells.map((c) => {
    const mine = c.contender.kind === 'ours' ? goals.filter((g) => g.scenario === c.scenario) : [];
    const verdict = mine.map((g) => `${g.goal}: ${g.pass === null ? 'n/a' : g.pass ? 'PASS' : 'FAIL'}`).join('; ');
    return `| ${scenarioName[c.scenario]} | ${c.contender.label} | ${fmt.settings(c.contender.settings)} | ${fmt.num(c.perSec)} | ${fmt.pct(c.fractionOfLimit)} | ${fmt.ms(c.waitP50Ms)} | ${fmt.ms(c.waitP99Ms)} | ${fmt.pct(c.handoffShare)} | ${c.gapP50Ms === null ? '–' : fmt.ms(c.gapP50Ms)} | ${c.holdMeanMs === null ? '–' : fmt.ms(c.holdMeanMs)} | ${fmt.num(c.clientCommandsPerSection, 2)} | ${fmt.num(c.serverCommandsPerSection, 2)} | ${c.overlaps} | ${c.failures} | ${verdict || '–'} |`;
  });
  return [head, ...rows].join('\n');
}

export function goalsTable(goals: GoalCheck[]): string {
  const head = '| goal | scenario | target | measured (ours) | result |\n|---|---|---|---|---|';
  const rows = goals.map((g) => `| ${g.goal} | ${g.scenario} | ${g.target} | ${g.measured} | ${g.pass === null ? 'n/a' : g.pass ? 'PASS' : 'FAIL'} |`);
  return [head, ...rows].join('\n');
}

export function breakdownTable(cells: CellResult[]): string {
  const head = '| scenario | contender | sent per section, by command | executed per section (incl. Lua inner calls) |\n|---|---|---|---|';
  const rows = cells
    .filter((c) => c.contender.kind === 'ours' || c.contender.kind === 'raw' || c.contender.kind === 'rawFenced')
    .map((c) => `| ${c.scenario} | ${c.contender.label} | ${fmt.perSection(c.clientCommands, cyclesOf(c))} | ${fmt.perSection(c.serverCommands, cyclesOf(c))} |`);
  return [head, ...rows].join('\n');
}

/** Scenario (a): each contender's wall time per op beside the CPU it cost here and in Redis, against the raw floor's. */
export function uncontendedCpuTable(cells: CellResult[]): string {
  const a = cells.filter((c) => c.scenario === 'a' && c.cpuPerOpUs);
  const raw = a.find((c) => c.contender.kind === 'raw');
  if (!raw?.cpuPerOpUs || a.length === 0) return '';
  const us = (c: CellResult) => 1e6 / c.perSec;
  const vsRaw = (mine: number, floor: number) => `${fmt.num(mine, 1)} (${(mine / floor).toFixed(2)}×)`;
  const head = '| contender | wall µs per op | client CPU µs | Redis CPU µs | of which running the commands µs |\n|---|---:|---:|---:|---:|';
  const cost = (c: CellResult, part: 'client' | 'server' | 'commands') => vsRaw(c.cpuPerOpUs![part], raw.cpuPerOpUs![part]);
  const rows = a.map((c) => `| ${c.contender.label} | ${vsRaw(us(c), us(raw))} | ${cost(c, 'client')} | ${cost(c, 'server')} | ${cost(c, 'commands')} |`);
  return [head, ...rows].join('\n');
}

export function sweepTable(report: BenchReport): string {
  const head = '| peer | settings tried | sections/s | wait p99 ms | cmds/section | chosen |\n|---|---|---:|---:|---:|---|';
  const rows = report.sweep.flatMap((s) =>
    s.tried.map(
      (t) =>
        `| ${s.kind} | ${fmt.settings(t.settings)} | ${fmt.num(t.perSec)} | ${fmt.ms(t.waitP99Ms)} | ${fmt.num(t.clientCommandsPerSection, 1)} | ${fmt.settings(t.settings) === fmt.settings(s.chosen) ? '✔' : ''} |`,
    ),
  );
  return [head, ...rows].join('\n');
}
