import { execFileSync, spawnSync } from 'node:child_process';
import { isRoot } from './system-packages';

/**
 * PostgreSQL refuses to run as root. Run as root, our private servers therefore need another
 * user, without changing anything outside the project's folders: no chown or chmod of the
 * folders above the clone (a clone in /root or under /tmp must stay as it is), no socket in the
 * system temp folder.
 *
 * The way that needs nothing from the machine is a user namespace: the binaries run as the
 * `postgres` uid inside it, which is root outside, so they reach the project's folders exactly as
 * root does, and the data folder stays root's. Where user namespaces are not allowed, the
 * binaries run as the `postgres` system user, which works only when that user can already reach
 * the data folder; otherwise the error says what to do.
 */
export interface PostgresRunner {
  /** The command line that runs `binary args` as a user PostgreSQL accepts. */
  command(binary: string, args: string[]): [string, string[]];
  /** Ownership the data folder needs before initdb, or undefined when it may stay as it is. */
  dataOwner?: { uid: number; gid: number };
}

let chosen: PostgresRunner | undefined;

export function postgresRunner(dataDir: string): PostgresRunner {
  if (!isRoot()) return { command: (binary, args) => [binary, args] };
  if (chosen) return chosen;
  const uid = idOf('-u');
  const gid = idOf('-g');
  const namespace = ['--user', `--map-user=${uid ?? 65534}`, `--map-group=${gid ?? 65534}`];
  if (spawnSync('unshare', [...namespace, 'true'], { stdio: 'ignore' }).status === 0) {
    chosen = { command: (binary, args) => ['unshare', [...namespace, binary, ...args]] };
    return chosen;
  }
  if (uid === undefined || gid === undefined) {
    throw new Error(
      'running as root with neither user namespaces (unshare --user) nor a postgres user: start PostgreSQL yourself and set DATABASE_URL',
    );
  }
  const parent = dataDir.replace(/\/[^/]+\/?$/, '') || '/';
  if (spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', parent], { stdio: 'ignore' }).status !== 0) {
    throw new Error(
      `running as root without user namespaces, and the postgres user cannot reach ${parent}: ` +
        'clone the project where that user can read it, or start PostgreSQL yourself and set DATABASE_URL',
    );
  }
  chosen = {
    command: (binary, args) => ['runuser', ['-u', 'postgres', '--', binary, ...args]],
    dataOwner: { uid, gid },
  };
  return chosen;
}

function idOf(flag: '-u' | '-g'): number | undefined {
  try {
    return Number(
      execFileSync('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim(),
    );
  } catch {
    return undefined;
  }
}

/**
 * Server options for a private cluster: TCP on loopback only and no Unix socket, so nothing is
 * written to a shared socket folder (and a deep project path cannot overflow a socket name).
 */
export const privateServerOptions = (port: number, extra = ''): string =>
  `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' ${extra}`.trim();
