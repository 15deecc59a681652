import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const PROJECT_ROOT = resolve(__dirname, '..', '..');
/** Built baselines, one folder per commit and Node major, inside the project's ignored `.infra`. */
const BASELINE_ROOT = join(PROJECT_ROOT, '.infra', 'baseline');
const ENTRY = join('dist', 'apps', 'api', 'main.js');
const LOCK_FILE = 'package-lock.json';

const sameFile = (a: string, b: string): boolean =>
  existsSync(a) && existsSync(b) && readFileSync(a).equals(readFileSync(b));

/** The full commit id of `ref` in this repository. */
export function resolveCommit(ref: string): string {
  return execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  }).trim();
}

/** The major version of a node binary, e.g. `v20`. */
function nodeMajor(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().split('.')[0];
}

/**
 * Builds the API of commit `sha` with the node binary `node` into `.infra/baseline/<sha>-<major>/`
 * and returns its `main.js`.
 *
 * `git archive` rather than a worktree: it leaves no worktree metadata in `.git` to clean up, and
 * never touches the working tree someone else may be editing. The copy installs its own
 * dependencies from its own lock file (`npm ci`, install scripts off as in the image): a commit
 * before a major upgrade (NestJS 11, ioredis 5) must run on what it shipped with, not on this
 * checkout's node_modules; a commit whose lock file is this checkout's borrows its node_modules.
 * The install and the build run on `node` and the npm beside it, as that commit's toolchain
 * expects. It is built in a scratch folder and renamed into place only once the
 * bundle exists, so a build cut short is never mistaken for a cached one; a second run with the
 * same commit and Node major reuses it.
 */
export function buildBaseline(sha: string, log: (line: string) => void, node = process.execPath): string {
  const dir = join(BASELINE_ROOT, `${sha}-${nodeMajor(node)}`);
  if (existsSync(join(dir, ENTRY))) {
    log(`baseline ${sha.slice(0, 9)}: reusing the build in ${dir}`);
    return join(dir, ENTRY);
  }
  const scratch = `${dir}.building`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  log(`baseline ${sha.slice(0, 9)}: extracting and building with ${node} in ${scratch}…`);
  execFileSync(
    'bash',
    ['-c', 'set -o pipefail; git -C "$1" archive "$2" | tar -x -C "$3"', 'extract', PROJECT_ROOT, sha, scratch],
    { stdio: 'inherit' },
  );
  // That node's own bin folder first, so `npm` and every `#!/usr/bin/env node` script run on it.
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` };
  if (sameFile(join(scratch, LOCK_FILE), join(PROJECT_ROOT, LOCK_FILE))) {
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  } else {
    log(
      `baseline ${sha.slice(0, 9)}: its lock file differs from this checkout's; installing its own dependencies (npm ci)…`,
    );
    const npm = existsSync(join(dirname(node), 'npm')) ? join(dirname(node), 'npm') : 'npm';
    execFileSync(npm, ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: scratch, env, stdio: 'inherit' });
  }
  // The commit's own nest-cli.json and tsconfig decide how it is bundled, as `npm run build` did then.
  execFileSync(node, [join('node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build', 'api'], {
    cwd: scratch,
    env,
    stdio: 'inherit',
  });
  if (!existsSync(join(scratch, ENTRY))) throw new Error(`building ${sha} produced no ${ENTRY}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  log(`baseline ${sha.slice(0, 9)}: built in ${basename(dir)}`);
  return join(dir, ENTRY);
}
