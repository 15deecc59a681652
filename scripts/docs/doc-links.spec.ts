import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/** The documentation a clone is read by: README, docs/, the library's and the examples' READMEs. */
function documentationFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  const untracked = execFileSync('git', ['ls-files', '-z', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).split('\0');
  return [...new Set([...tracked, ...untracked])].filter(
    (file) =>
      /^(README\.md|docs\/[^/]+\.md|libs\/[^/]+\/README\.md|examples\/[^/]+\/README\.md)$/.test(file) &&
      existsSync(join(ROOT, file)),
  );
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

function anchorsIn(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1])));
}

/** Every link target written as Markdown (`[text](target)`, images too), outside code blocks. */
function linksIn(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
}

describe('links in the documentation', () => {
  const files = documentationFiles();

  it('finds the documentation and its links (the reader works)', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/API.md', 'libs/distributed-lock/README.md']));
    expect(linksIn('README.md')).toEqual(expect.arrayContaining(['docs/API.md']));
  });

  it('resolves every relative link to a file inside the repository, and every anchor to a heading', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const link of linksIn(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // a URL with a scheme is not a relative link
        const [path, anchor] = link.split('#');
        const target = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), decodeURIComponent(path));
        const inside = !relative(ROOT, target).startsWith('..');
        if (!inside) broken.push(`${file}: ${link} leaves the repository`);
        else if (!existsSync(target)) broken.push(`${file}: ${link} does not exist`);
        else if (anchor && target.endsWith('.md') && !anchorsIn(target).has(anchor))
          broken.push(`${file}: ${link} names no heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});
