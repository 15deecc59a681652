import { readFileSync } from 'node:fs';

/**
 * The surviving mutants of `npm run mutation:history` as a markdown list for docs/RELIABILITY.md:
 * file, line, mutator and the replacement, from Stryker's JSON report (mutation-testing-elements
 * schema). Usage: node -r ts-node/register/transpile-only scripts/history/mutation-survivors.ts [report.json]
 */
interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}
const report = JSON.parse(readFileSync(process.argv[2] ?? 'reports/mutation/history.json', 'utf8')) as {
  files: Record<string, { source: string; mutants: Mutant[] }>;
};
/**
 * Why a mutant survived, read from its line (a first sort, not a proof): it only shapes a
 * counterexample's words; no test reaches it; it moves a boundary by one instant; or it weakens a
 * guard no corpus case or generated fault sits next to.
 */
function classOf(m: Mutant, line: string): string {
  if (m.status === 'NoCoverage') return 'no coverage';
  if (/`|describe\(|iso\(|names\(|whereOf\(|examples/.test(line)) return 'message';
  if (m.mutatorName === 'EqualityOperator') return 'boundary';
  return 'guard';
}
const classes = new Map<string, number>();
let killed = 0;
let total = 0;
const lines: string[] = [];
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const text = source.split('\n');
  for (const m of mutants) {
    if (m.status === 'Ignored' || m.status === 'CompileError') continue;
    total++;
    if (m.status === 'Killed' || m.status === 'Timeout') killed++;
    if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
    const line = m.location.start.line;
    const raw = text[line - 1];
    const kind = classOf(m, raw);
    classes.set(kind, (classes.get(kind) ?? 0) + 1);
    const code = raw.trim().slice(0, 90).replace(/\|/g, '\\|');
    lines.push(
      `| ${file.replace(/^.*scripts\/history\//, '')}:${line} | ${m.mutatorName} | ${kind} | \`${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 60).replace(/\|/g, '\\|')}\` | \`${code}\` |`,
    );
  }
}
console.log(
  `score ${((100 * killed) / total).toFixed(2)}% (${killed} of ${total} killed or timed out, ${lines.length} survived)\n`,
);
console.log([...classes].map(([k, n]) => `${k}: ${n}`).join(', '), '\n');
console.log('| where | mutator | class | replacement | line |\n|---|---|---|---|---|');
console.log(lines.join('\n'));
