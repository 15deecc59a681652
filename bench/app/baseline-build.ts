import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const PROJECT_ROOT = resolve(__dirname, '..', '..');
/** Built baselines, one folder per commit, inside the project's ignored `.infra`. */
const BASELINE_ROOT = join(PROJECT_ROOT, '.infra', 'baseline');
const ENTRY = join('dist', 'apps', 'api', 'main.js');

/** The full commit id of `ref` in this repository. */
export function resolveCommit(ref: string): string {
  return execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
}

/**
 * Builds the API of commit `sha` into `.infra/baseline/<sha>/` and returns its `main.js`.
 *
 * `git archive` rather than a worktree: it leaves no worktree metadata in `.git` to clean up, and
 * never touches the working tree someone else may be editing. The copy borrows the project's
 * node_modules through a symlink (the lock file rarely changes between the commits compared). It
 * is built in a scratch folder and renamed into place only once the bundle exists, so a build cut
 * short is never mistaken for a cached one; a second run with the same commit reuses it.
 */
export function buildBaseline(sha: string, log: (line: string) => void): string {
  const dir = join(BASELINE_ROOT, sha);
  if (existsSync(join(dir, ENTRY))) {
    log(`baseline ${sha.slice(0, 9)}: reusing the build in ${dir}`);
    return join(dir, ENTRY);
  }
  const scratch = `${dir}.building`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  log(`baseline ${sha.slice(0, 9)}: extracting and building in ${scratch}…`);
  execFileSync('bash', ['-c', 'set -o pipefail; git -C "$1" archive "$2" | tar -x -C "$3"', 'extract', PROJECT_ROOT, sha, scratch], { stdio: 'inherit' });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(scratch, 'node_modules'), 'dir');
  // The commit's own nest-cli.json and tsconfig decide how it is bundled, as `npm run build` did then.
  execFileSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'nest'), ['build', 'api'], { cwd: scratch, stdio: 'inherit' });
  if (!existsSync(join(scratch, ENTRY))) throw new Error(`building ${sha} produced no ${ENTRY}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  return join(dir, ENTRY);
}
