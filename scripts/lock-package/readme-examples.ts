// The code blocks of the lock library's README and the example files they come from: a block
// preceded by `<!-- example: examples/x.ts -->` is that file's `// README:begin` ... `// README:end`
// regions, each dedented, joined by a blank line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const LIBRARY = join(__dirname, '..', '..', 'libs', 'distributed-lock');

export interface ReadmeBlock {
  /** The example file named by the marker, relative to the library; undefined for an unmarked block. */
  file?: string;
  language: string;
  code: string;
  line: number;
}

/** Every fenced code block of a Markdown text, with the example marker on the line before it, if any. */
export function codeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`README: the code block at line ${i + 1} is never closed`);
    const marker = /^<!-- example: (\S+) -->$/.exec(lines[i - 1] ?? '');
    blocks.push({ file: marker?.[1], language: open[1], code: lines.slice(i + 1, end).join('\n'), line: i + 1 });
    i = end;
  }
  return blocks;
}

/** The README text of one example file: its marked regions, dedented, joined by a blank line. */
export function readmeRegions(source: string): string {
  const regions: string[][] = [];
  let current: string[] | undefined;
  for (const line of source.split('\n')) {
    if (line.trim() === '// README:begin') current = [];
    else if (line.trim() === '// README:end' && current) {
      regions.push(current);
      current = undefined;
    } else current?.push(line);
  }
  return regions.map(dedent).join('\n\n');
}

function dedent(lines: string[]): string {
  const indents = lines.filter((line) => line.trim()).map((line) => /^ */.exec(line)![0].length);
  const cut = Math.min(...indents);
  return lines.map((line) => line.slice(cut)).join('\n');
}

export function readLibraryFile(relative: string): string {
  return readFileSync(join(LIBRARY, relative), 'utf8');
}
