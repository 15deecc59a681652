import { execFileSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { hasCommand, installPackages, isRoot } from './system-packages';

/** What a private server needs from one folder: pg_ctl starts the `postgres` beside it. */
export const SERVER_TOOLS = ['initdb', 'pg_ctl', 'postgres'] as const;

/** Debian and Ubuntu keep each major version's server out of PATH, in its own folder here. */
export const DEBIAN_ROOT = '/usr/lib/postgresql';

/** The machine as the lookup sees it; tests hand in a fake one. */
export interface MachineView {
  /** `pg_config --bindir`, or undefined when pg_config is missing or fails. */
  pgConfigBindir(): string | undefined;
  /** The folders of PATH, in order. */
  pathDirs: string[];
  isExecutable(path: string): boolean;
  /** A folder's entries, or [] when it does not exist. */
  list(dir: string): string[];
}

/**
 * The folder holding PostgreSQL's server binaries, looked for in this order:
 * 1. `pg_config --bindir`: the installation the developer's tools belong to (Homebrew, Postgres.app,
 *    a source build). Debian's pg_config (libpq-dev) names /usr/bin, which has no server: passed over.
 * 2. the first PATH folder with all three tools (a keg-only Homebrew postgresql@N put on PATH).
 * 3. Debian's /usr/lib/postgresql/<major>/bin, the newest major first.
 */
export function findPostgresBinDir(machine: MachineView): string | undefined {
  const hasServer = (dir: string) => SERVER_TOOLS.every((tool) => machine.isExecutable(join(dir, tool)));
  const fromPgConfig = machine.pgConfigBindir();
  if (fromPgConfig && hasServer(fromPgConfig)) return fromPgConfig;
  const onPath = machine.pathDirs.find((dir) => dir !== '' && hasServer(dir));
  if (onPath) return onPath;
  const majors = machine
    .list(DEBIAN_ROOT)
    .filter((major) => /^\d+(\.\d+)?$/.test(major))
    .sort((a, b) => Number(b) - Number(a));
  return majors.map((major) => join(DEBIAN_ROOT, major, 'bin')).find(hasServer);
}

/** The error when no folder has them: what was searched, and what to install on each system. */
export function postgresMissingMessage(): string {
  return (
    `PostgreSQL server binaries (${SERVER_TOOLS.join(', ')}) not found: looked in \`pg_config --bindir\`, PATH and ${DEBIAN_ROOT}/*/bin. ` +
    'Install the PostgreSQL server (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql@17, ' +
    'then put "$(brew --prefix postgresql@17)/bin" on PATH), or start a Postgres yourself and set DATABASE_URL ' +
    '(TEST_DATABASE_URL for the tests)'
  );
}

/**
 * The folder of the server binaries. None found: as root with apt-get (CI, a fresh Debian box)
 * Debian's postgresql is installed first; anywhere else the error says what to install.
 */
export function requirePostgresBinDir(): string {
  const found = findPostgresBinDir(thisMachine());
  if (found) return found;
  if (isRoot() && hasCommand('apt-get')) {
    installPackages(['postgresql'], 'PostgreSQL server binaries are missing');
    const installed = findPostgresBinDir(thisMachine());
    if (installed) return installed;
  }
  throw new Error(postgresMissingMessage());
}

/** This machine, read for real. */
export const thisMachine = (): MachineView => ({
  pgConfigBindir: () => {
    try {
      return (
        execFileSync('pg_config', ['--bindir'], { stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .trim() || undefined
      );
    } catch {
      return undefined;
    }
  },
  pathDirs: (process.env.PATH ?? '').split(delimiter),
  isExecutable: (path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  list: (dir) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
});
