import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const START = '<!-- bench:lock:start -->';
const END = '<!-- bench:lock:end -->';

/** Replaces only the text between our markers (appending them if absent); other sections stay. */
export function writeSection(path: string, body: string): void {
  const block = `${START}\n${body.trim()}\n${END}`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const from = current.indexOf(START);
  const to = current.indexOf(END);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + END.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(path, next);
}
