import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The shell scripts behind the README's commands and CI run on macOS's /bin/bash 3.2 as well as on
 * Linux. Bash 3.2 has no `mapfile`/`readarray`, no associative arrays, no case-changing expansions,
 * and under `set -u` it calls an empty array's `"${a[@]}"` unbound: such an expansion must be
 * guarded as `${a[@]+"${a[@]}"}`. shellcheck then judges the rest (CI installs it).
 */
const scripts = execFileSync('git', ['ls-files', '*.sh', '.ci/run'], { encoding: 'utf8' }).split('\n').filter(Boolean);

const BASH_4_ONLY: Array<[RegExp, string]> = [
  [/(^|[\s;(])(mapfile|readarray)\s/, 'mapfile/readarray (bash 4)'],
  [/declare\s+-[a-zA-Z]*A/, 'an associative array (bash 4)'],
  [/\$\{[A-Za-z_][A-Za-z0-9_]*(,,|\^\^)\}/, 'a case-changing expansion (bash 4)'],
  [
    /(?<!\+)"\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]\}"/,
    'an unguarded "${array[@]}" (unbound when empty under set -u in bash 3.2)',
  ],
];

describe('the shell scripts', () => {
  it('are found', () => {
    expect(scripts).toEqual(expect.arrayContaining(['scripts/test.sh', 'scripts/demo.sh', '.ci/run']));
  });

  it.each(scripts)('%s uses nothing bash 3.2 lacks', (file) => {
    const problems = readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) =>
        line.trimStart().startsWith('#')
          ? []
          : BASH_4_ONLY.filter(([shape]) => shape.test(line)).map(([, what]) => `${file}:${i + 1}: ${what}`),
      );
    expect(problems).toEqual([]);
  });

  it('pass shellcheck', () => {
    const found = spawnSync('shellcheck', ['--version']).status === 0;
    if (!found && process.env.CI !== 'true') return console.warn('shellcheck not on PATH: skipped (CI installs it)');
    const result = spawnSync('shellcheck', ['-x', ...scripts], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
  });
});
