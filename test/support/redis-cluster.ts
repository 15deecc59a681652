import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis, { Cluster, ClusterOptions } from 'ioredis';
import { freeClusterPort } from './cluster-ports';
import { RedisServerProcess } from './redis-server';
import { testOutputDir } from './test-output';

const run = promisify(execFile);
// Replicas sync at once (the default waits 5 s for more replicas) and stay eligible for
// promotion however long they were cut off, so a test's failover is not vetoed.
const FAST_REPLICATION = ['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0', '--cluster-replica-validity-factor', '0'];

/**
 * A private 6-node Redis Cluster (3 primaries, 3 replicas) on free ports, built with the real
 * `redis-server --cluster-enabled yes` and `redis-cli --cluster create`. A short node timeout
 * makes a replica take over a killed primary within a few seconds. Every node asks for a password
 * (`requirepass`, and `masterauth` for its replica), as a deployment's would.
 */
export class RedisClusterProcess {
  private constructor(
    readonly nodes: RedisServerProcess[],
    private readonly dir: string,
    readonly password: string,
  ) {}

  static async start(nodeTimeoutMs = 1000): Promise<RedisClusterProcess> {
    const dir = testOutputDir('cluster');
    const password = randomBytes(12).toString('hex');
    const taken = new Set<number>();
    const ports: number[] = [];
    for (let i = 0; i < 6; i++) ports.push(await freeClusterPort(taken));
    const nodes = await Promise.all(
      ports.map((port) =>
        RedisServerProcess.start(
          ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', String(nodeTimeoutMs), '--dir', dir, '--requirepass', password, '--masterauth', password, ...FAST_REPLICATION],
          port,
        ),
      ),
    );
    const cluster = new RedisClusterProcess(nodes, dir, password);
    try {
      await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], {
        timeout: 60_000,
        env: { ...process.env, REDISCLI_AUTH: password },
      });
      await cluster.waitUntilHealthy(60_000);
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** `host:port,host:port,...` as REDIS_CLUSTER_NODES expects. */
  get nodeList(): string {
    return this.nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
  }

  /** What an API instance needs to use this cluster (REDIS_MODE=cluster and its variables). */
  get env(): Record<string, string> {
    return { REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: this.nodeList, REDIS_PASSWORD: this.password };
  }

  client(options: ClusterOptions = {}): Cluster {
    return new Cluster(
      this.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
      { ...options, redisOptions: { maxRetriesPerRequest: 1, password: this.password, ...options.redisOptions } },
    );
  }

  /** The live node currently serving `key`'s slot as primary (CLUSTER KEYSLOT + CLUSTER NODES). */
  async primaryOf(key: string): Promise<RedisServerProcess> {
    const probe = this.anyLiveNode();
    try {
      const slot = Number(await probe.call('CLUSTER', 'KEYSLOT', key));
      const lines = String(await probe.call('CLUSTER', 'NODES')).trim().split('\n');
      for (const line of lines) {
        const [, address, flags, , , , , , ...ranges] = line.split(' ');
        if (!flags.includes('master') || flags.includes('fail')) continue;
        const owns = ranges.some((r) => {
          const [from, to] = r.split('-').map(Number);
          return slot >= from && slot <= (to ?? from);
        });
        if (owns) return this.nodes.find((n) => n.port === Number(address.split(':')[1].split('@')[0]))!;
      }
      throw new Error(`no primary owns slot ${slot}`);
    } finally {
      probe.disconnect();
    }
  }

  /** Resolves once every live node reports cluster_state:ok and every slot has a live primary. */
  async waitUntilHealthy(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await this.healthy()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`Redis Cluster not healthy within ${timeoutMs} ms`);
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop('SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async healthy(): Promise<boolean> {
    const live = this.nodes.filter((n) => n.pid !== undefined);
    const states = await Promise.all(
      live.map(async (n) => {
        const c = n.client({ lazyConnect: true, retryStrategy: () => null });
        c.on('error', () => undefined);
        try {
          await c.connect();
          if (!/cluster_state:ok/.test(String(await c.call('CLUSTER', 'INFO')))) return false;
          const replication = await c.info('replication');
          return !/role:slave/.test(replication) || /master_link_status:up/.test(replication);
        } catch {
          return false;
        } finally {
          c.disconnect();
        }
      }),
    );
    return states.every(Boolean);
  }

  private anyLiveNode(): Redis {
    const node = this.nodes.find((n) => n.pid !== undefined);
    if (!node) throw new Error('no live Cluster node');
    const client = node.client();
    client.on('error', () => undefined);
    return client;
  }
}
