import { ChildProcess, spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { requirePostgresBinDir } from '../../../scripts/infra/postgres-binaries';
import { postgresRunner } from '../../../scripts/infra/postgres-user';
import { freePort } from '../../support/free-port';
import { withPg } from '../../support/api-client';
import { LOG_DIR } from './cluster';

const DEPLOY = resolve(__dirname, '../../../deploy');
const SUPERUSER_PASSWORD = 'chaos-superuser';
export const APP_PASSWORD = 'chaos-app';

interface Node {
  name: string;
  pgPort: number;
  apiPort: number;
  dataDir: string;
  patroni?: ChildProcess;
}

/** A member as Patroni's GET /cluster lists it. */
export interface Member {
  name: string;
  role: string;
  state: string;
  timeline?: number;
}

export interface PatroniOptions {
  /** Log file prefix under reports/chaos/logs/. */
  scenario: string;
  /** Patroni's synchronous_mode (the shipped file has it on; the async variant turns it off). */
  synchronous: boolean;
}

/**
 * deploy/patroni/ on this machine: a private etcd, three Patroni-managed PostgreSQL nodes (Debian's
 * patroni and the PostgreSQL binaries postgres-binaries.ts finds) and HAProxy with
 * deploy/patroni/haproxy.cfg, all on free loopback ports, with their files in one folder under
 * .infra/. Each node runs the shipped patroni.yml with only what a shared machine needs changed:
 * addresses, folders, no Unix socket, fsync off, and a 10 s leader ttl so a failover fits a test.
 */
export class PatroniCluster {
  private etcd?: ChildProcess;
  private haproxy?: ChildProcess;
  private proxyPort = 0;
  private readonly logs: number[] = [];

  private constructor(
    private readonly dir: string,
    private readonly nodes: Node[],
    private readonly options: PatroniOptions,
  ) {}

  static async start(options: PatroniOptions): Promise<PatroniCluster> {
    mkdirSync(resolve('.infra'), { recursive: true });
    mkdirSync(LOG_DIR, { recursive: true });
    const dir = mkdtempSync(resolve('.infra/chaos-patroni-'));
    const owner = postgresRunner(dir).dataOwner;
    if (owner) chownSync(dir, owner.uid, owner.gid);
    const nodes: Node[] = [];
    for (let i = 1; i <= 3; i++) nodes.push({ name: `pg${i}`, pgPort: await freePort(), apiPort: await freePort(), dataDir: join(dir, `pg${i}`) });
    const cluster = new PatroniCluster(dir, nodes, options);
    try {
      await cluster.startEtcd();
      for (const node of nodes) cluster.startPatroni(node);
      await cluster.startProxy();
      await cluster.waitUntil((members) => members.filter((m) => m.state === 'running' || m.state === 'streaming').length === 3 && (!options.synchronous || members.some((m) => m.role === 'sync_standby')), 120_000, 'three running nodes');
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
    return cluster;
  }

  /** A URL through HAProxy, as the API's DATABASE_URL: the app's own role, or the superuser. */
  url(role: 'app' | 'superuser' = 'app', database = 'flashsale'): string {
    const credentials = role === 'app' ? `flashsale:${APP_PASSWORD}` : `postgres:${SUPERUSER_PASSWORD}`;
    return `postgres://${credentials}@127.0.0.1:${this.proxyPort}/${database}`;
  }

  /** The cluster as any node still answering sees it (Patroni's GET /cluster). */
  async members(): Promise<Member[]> {
    for (const node of this.nodes.filter((n) => n.patroni && n.patroni.exitCode === null && n.patroni.signalCode === null)) {
      try {
        const res = await fetch(`http://127.0.0.1:${node.apiPort}/cluster`, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return ((await res.json()) as { members: Member[] }).members;
      } catch {
        // that node is down or busy: ask the next
      }
    }
    return [];
  }

  /** The running primary's name, per Patroni's REST API. */
  async leader(): Promise<string | undefined> {
    return (await this.members()).find((m) => m.role === 'leader' && m.state === 'running')?.name;
  }

  async waitUntil(done: (members: Member[]) => boolean, timeoutMs: number, what: string): Promise<Member[]> {
    const deadline = Date.now() + timeoutMs;
    let last: Member[] = [];
    while (Date.now() < deadline) {
      last = await this.members();
      if (done(last)) return last;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`patroni: no ${what} within ${timeoutMs} ms; members ${JSON.stringify(last)}`);
  }

  /**
   * The primary's machine dies: SIGKILL to its Patroni (so nothing restarts PostgreSQL there) and
   * to its postmaster. The backends are left to notice their postmaster is gone, as they would.
   */
  killNode(name: string): { patroniPid: number; postmasterPid: number } {
    const node = this.nodes.find((n) => n.name === name)!;
    const postmasterPid = Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const patroniPid = node.patroni!.pid!;
    node.patroni!.kill('SIGKILL');
    process.kill(postmasterPid, 'SIGKILL');
    return { patroniPid, postmasterPid };
  }

  async destroy(): Promise<void> {
    for (const node of this.nodes) {
      node.patroni?.kill('SIGKILL');
      const pidFile = join(node.dataDir, 'postmaster.pid');
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    this.haproxy?.kill('SIGKILL');
    this.etcd?.kill('SIGKILL');
    for (const fd of this.logs) closeSync(fd);
    // Backends of a killed postmaster exit on their own; give them a moment before the folder goes.
    await new Promise((r) => setTimeout(r, 500));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private log(name: string): number {
    const fd = openSync(join(LOG_DIR, `${this.options.scenario}-${name}.log`), 'w');
    this.logs.push(fd);
    return fd;
  }

  private async startEtcd(): Promise<void> {
    const client = await freePort();
    const peer = await freePort();
    const out = this.log('etcd');
    this.etcd = spawn(
      'etcd',
      [
        '--name', 'etcd', '--data-dir', join(this.dir, 'etcd'),
        '--listen-client-urls', `http://127.0.0.1:${client}`, '--advertise-client-urls', `http://127.0.0.1:${client}`,
        '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
        '--initial-cluster', `etcd=http://127.0.0.1:${peer}`,
      ],
      { stdio: ['ignore', out, out] },
    );
    this.etcdHosts = `127.0.0.1:${client}`;
    await until(async () => (await fetch(`http://127.0.0.1:${client}/health`).then((r) => r.ok, () => false)), 20_000, 'etcd');
  }

  private etcdHosts = '';

  private startPatroni(node: Node): void {
    const config = load(readFileSync(join(DEPLOY, 'patroni/patroni.yml'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    config.name = node.name;
    config.restapi = { listen: `127.0.0.1:${node.apiPort}`, connect_address: `127.0.0.1:${node.apiPort}` };
    config.etcd3 = { ...config.etcd3, hosts: this.etcdHosts };
    Object.assign(config.bootstrap.dcs, { ttl: 10, loop_wait: 1, retry_timeout: 3, synchronous_mode: this.options.synchronous });
    config.bootstrap.post_init = join(DEPLOY, 'patroni/post-init.sh');
    Object.assign(config.postgresql, {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: node.dataDir,
      bin_dir: requirePostgresBinDir(),
      pgpass: join(this.dir, `${node.name}.pgpass`),
    });
    config.postgresql.authentication.superuser.password = SUPERUSER_PASSWORD;
    config.postgresql.authentication.replication.password = 'chaos-replication';
    // No Unix socket (a shared socket folder, a deep path), and no fsync: a killed process loses
    // nothing the kernel already has, and the machine itself is not what is crashed here.
    config.postgresql.parameters = { ...config.postgresql.parameters, unix_socket_directories: '', fsync: 'off', max_connections: 100, shared_buffers: '32MB' };
    const file = join(this.dir, `${node.name}.yml`);
    writeFileSync(file, JSON.stringify(config, null, 2));
    const [cmd, argv] = postgresRunner(this.dir).command('patroni', [file]);
    const out = this.log(node.name);
    node.patroni = spawn(cmd, argv, {
      stdio: ['ignore', out, out],
      env: { ...process.env, APP_DB_PASSWORD: APP_PASSWORD, APP_ROLE_SQL: join(DEPLOY, 'postgres/app-role.sql') },
    });
  }

  private async startProxy(): Promise<void> {
    this.proxyPort = await freePort();
    const readyPort = await freePort();
    const env: Record<string, string> = { ...(process.env as Record<string, string>), PG_PROXY_BIND: `127.0.0.1:${this.proxyPort}`, PG_PROXY_HEALTH_BIND: `127.0.0.1:${readyPort}` };
    this.nodes.forEach((node, i) => {
      env[`PG_NODE_${i + 1}`] = `127.0.0.1:${node.pgPort}`;
      env[`PG_NODE_${i + 1}_API`] = String(node.apiPort);
    });
    const out = this.log('haproxy');
    this.haproxy = spawn('haproxy', ['-f', join(DEPLOY, 'patroni/haproxy.cfg')], { env, stdio: ['ignore', out, out] });
    // The proxy's own readiness (a primary is in), then through it to the API's database:
    // bootstrap, post_init and the first check have all happened.
    await until(async () => (await fetch(`http://127.0.0.1:${readyPort}/ready`).then((r) => r.status === 200, () => false)), 120_000, 'GET /ready of HAProxy');
    await until(() => withPg(this.url(), async (pg) => (await pg.query('SELECT NOT pg_is_in_recovery() AS primary')).rows[0].primary === true).catch(() => false), 120_000, 'the primary through HAProxy');
  }
}

async function until(ok: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms (logs in ${LOG_DIR})`);
}
