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
const report = JSON.parse(readFileSync(process.argv[2] ?? 'reports/mutation/history.json', 'utf8')) as { files: Record<string, { source: string; mutants: Mutant[] }> };
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
    const code = text[line - 1].trim().slice(0, 90).replace(/\|/g, '\\|');
    lines.push(`| ${file.replace(/^.*scripts\/history\//, '')}:${line} | ${m.mutatorName}${m.status === 'NoCoverage' ? ' (no coverage)' : ''} | \`${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 60).replace(/\|/g, '\\|')}\` | \`${code}\` |`);
  }
}
console.log(`score ${((100 * killed) / total).toFixed(2)}% (${killed} of ${total} killed or timed out, ${lines.length} survived)\n`);
console.log('| where | mutator | replacement | line |\n|---|---|---|---|');
console.log(lines.join('\n'));
