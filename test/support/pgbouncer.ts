import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';
import { testOutputDir } from './test-output';

const BIN = '/usr/sbin/pgbouncer';

/** Installs Debian's pgbouncer when it is missing (the test machine runs as root). */
export function ensurePgBouncer(): void {
  if (existsSync(BIN)) return;
  execFileSync('apt-get', ['install', '-y', 'pgbouncer'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

/**
 * A private PgBouncer in transaction mode in front of `serverUrl`'s Postgres. The app sends
 * statement_timeout and idle_in_transaction_session_timeout as startup parameters, which PgBouncer
 * refuses: they are ignored here, set on the database instead, and PgBouncer bounds idle
 * transactions itself (see docs/SCALING.md).
 */
export class PgBouncerProcess {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(serverUrl: string, poolSize = 20): Promise<PgBouncerProcess> {
    ensurePgBouncer();
    const server = new URL(serverUrl);
    const user = decodeURIComponent(server.username || 'postgres');
    // PgBouncer reads its config and auth file before it drops root for `nobody`: root's folder will do.
    const dir = testOutputDir('pgbouncer');
    const port = await freePort();
    const password = server.password ? ` password=${decodeURIComponent(server.password)}` : '';
    writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432} user=${user}${password}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 1000',
        'ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout',
        'idle_transaction_timeout = 10',
        '',
      ].join('\n'),
    );
    const child = spawn(BIN, ['-u', 'nobody', join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
    child.on('error', () => undefined);
    const bouncer = new PgBouncerProcess(port, child, dir);
    await bouncer.waitUntilReady(user);
    return bouncer;
  }

  /** `databaseUrl` with its host and port replaced by this PgBouncer's. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async waitUntilReady(user: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const client = new Client({ host: '127.0.0.1', port: this.port, user, database: 'postgres' });
      try {
        await client.connect();
        await client.query('SELECT 1');
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new Error(`pgbouncer on port ${this.port} did not accept connections`);
  }
}
