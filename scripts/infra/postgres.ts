import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from '../../test/support/free-port';
import { postgresAnswers, waitFor } from './probe';
import { RunningService } from './redis';
import { postgresRunner, privateServerOptions } from './postgres-user';
import { requirePostgresBinDir } from './postgres-binaries';
import { hasCommand, isRoot } from './system-packages';

const DEFAULT_SERVER_URL = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

/** The same server, another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * Finds a Postgres to use: the server of DATABASE_URL (or the default local one) when it answers;
 * else the machine's own cluster, started; else a private server in .infra/postgres.
 * Returns a URL of the server's `postgres` database, for creating the databases we use.
 */
export async function ensurePostgres(databaseUrl = process.env.DATABASE_URL): Promise<RunningService> {
  const serverUrl = databaseUrl ? withDatabase(databaseUrl, 'postgres') : DEFAULT_SERVER_URL;
  if (await postgresAnswers(serverUrl)) return { url: serverUrl, private: false, stop: async () => undefined };
  if (!databaseUrl && startSystemCluster() && (await answersSoon(serverUrl))) {
    return { url: serverUrl, private: false, stop: async () => undefined };
  }
  return startPrivatePostgres();
}

function startSystemCluster(): boolean {
  if (!isRoot() || !hasCommand('pg_ctlcluster') || !existsSync('/etc/postgresql')) return false;
  for (const version of readdirSync('/etc/postgresql')) {
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'ignore' });
  }
  return true;
}

async function answersSoon(url: string): Promise<boolean> {
  try {
    await waitFor(() => postgresAnswers(url), 15_000, 'postgres');
    return true;
  } catch {
    return false;
  }
}

async function startPrivatePostgres(): Promise<RunningService> {
  const bin = requirePostgresBinDir();
  const dataDir = unusedDataDir();
  const port = await freePort();
  const runner = postgresRunner(dataDir);
  const run = (tool: string, args: string[]): void => {
    const [cmd, argv] = runner.command(`${bin}/${tool}`, args);
    execFileSync(cmd, argv, { stdio: 'ignore', cwd: dataDir });
  };
  if (!existsSync(`${dataDir}/PG_VERSION`)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (runner.dataOwner) chownSync(dataDir, runner.dataOwner.uid, runner.dataOwner.gid);
    run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
  }
  run('pg_ctl', ['-D', dataDir, '-l', `${dataDir}/server.log`, '-w', '-o', privateServerOptions(port), 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitFor(() => postgresAnswers(url), 20_000, `private postgres on port ${port}`);
  console.log(`[infra] started a private PostgreSQL at ${url}`);
  return { url, private: true, stop: async () => run('pg_ctl', ['-D', dataDir, '-m', 'fast', 'stop']) };
}

/**
 * `.infra/postgres`, or `.infra/postgres-2`, `-3`... when a private server of another run (a test
 * run's, while the demo's own test starts one more) is still using it: two servers cannot share a
 * data folder.
 */
function unusedDataDir(): string {
  for (let n = 1; ; n++) {
    const dir = resolve(n === 1 ? '.infra/postgres' : `.infra/postgres-${n}`);
    if (!serverRunsIn(dir)) return dir;
  }
}

/** Whether postmaster.pid names a live process (a stale file after a crash does not count). */
function serverRunsIn(dataDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
