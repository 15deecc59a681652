import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Redis, { RedisOptions } from 'ioredis';
import { freePort } from './free-port';
import { RedisServerProcess } from './redis-server';
import { testOutputDir } from './test-output';

export const SENTINEL_MASTER_NAME = 'fsmaster';

/**
 * A private primary + replica watched by 3 Sentinels (`redis-server <conf> --sentinel`), with
 * a short down-after and failover timeout so a killed primary is replaced within seconds. Every
 * node asks for a password, as a deployment's would: the data nodes one (`requirepass`, and
 * `masterauth` to replicate), the Sentinels their own.
 */
export class RedisSentinelGroup {
  private constructor(
    readonly servers: RedisServerProcess[],
    readonly sentinelPorts: number[],
    private readonly sentinels: ChildProcess[],
    private readonly dir: string,
    readonly password: string,
    readonly sentinelPassword: string,
  ) {}

  static async start(downAfterMs = 1000): Promise<RedisSentinelGroup> {
    const dir = testOutputDir('sentinel');
    const password = randomBytes(12).toString('hex');
    const sentinelPassword = randomBytes(12).toString('hex');
    const fast = ['--repl-diskless-sync', 'yes', '--repl-diskless-sync-delay', '0', '--dir', dir, '--requirepass', password, '--masterauth', password];
    const primary = await RedisServerProcess.start(fast);
    const replica = await RedisServerProcess.start([...fast, '--replicaof', '127.0.0.1', String(primary.port)]);
    const ports = [await freePort(), await freePort(), await freePort()];
    const sentinels = ports.map((port) => {
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `requirepass ${sentinelPassword}`,
          `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${primary.port} 2`,
          `sentinel auth-pass ${SENTINEL_MASTER_NAME} ${password}`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} ${downAfterMs}`,
          `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 5000`,
          `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      const child = spawn(process.env.REDIS_SERVER_BIN ?? 'redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
      child.on('error', () => undefined);
      return child;
    });
    const group = new RedisSentinelGroup([primary, replica], ports, sentinels, dir, password, sentinelPassword);
    try {
      await group.waitForReplicaInSync(20_000);
      await group.waitUntilSentinelsSee(2, 20_000);
    } catch (error) {
      await group.stop();
      throw error;
    }
    return group;
  }

  /** `host:port,...` as REDIS_SENTINELS expects. */
  get sentinelList(): string {
    return this.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',');
  }

  /** What an API instance needs to use this group (REDIS_MODE=sentinel and its variables). */
  get env(): Record<string, string> {
    return {
      REDIS_MODE: 'sentinel',
      REDIS_SENTINELS: this.sentinelList,
      REDIS_SENTINEL_NAME: SENTINEL_MASTER_NAME,
      REDIS_PASSWORD: this.password,
      REDIS_SENTINEL_PASSWORD: this.sentinelPassword,
    };
  }

  client(options: RedisOptions = {}): Redis {
    return new Redis({
      sentinels: this.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
      name: SENTINEL_MASTER_NAME,
      maxRetriesPerRequest: 1,
      password: this.password,
      sentinelPassword: this.sentinelPassword,
      ...options,
    });
  }

  /** A direct connection to one Sentinel, with its password unless told otherwise. */
  sentinel(index = 0, options: RedisOptions = {}): Redis {
    return new Redis(this.sentinelPorts[index], '127.0.0.1', { maxRetriesPerRequest: 1, password: this.sentinelPassword, ...options });
  }

  /** The server Sentinels currently name as master. */
  async master(): Promise<RedisServerProcess> {
    const sentinel = this.sentinel();
    try {
      const [, port] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER_NAME)) as string[];
      const server = this.servers.find((s) => s.port === Number(port));
      if (!server) throw new Error(`Sentinel names an unknown master port ${port}`);
      return server;
    } finally {
      sentinel.disconnect();
    }
  }

  /** Resolves when Sentinels name a master other than `old` and it accepts writes. */
  async waitForFailover(old: RedisServerProcess, timeoutMs: number): Promise<RedisServerProcess> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const current = await this.master().catch(() => old);
      if (current !== old) {
        const c = current.client();
        const role = await c.call('ROLE').catch(() => ['?']);
        c.disconnect();
        if ((role as string[])[0] === 'master') return current;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no Sentinel failover within ${timeoutMs} ms`);
  }

  async stop(): Promise<void> {
    for (const child of this.sentinels) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(this.servers.map((s) => s.stop('SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /**
   * Resolves when the master Sentinels name has a replica in sync (after a killed node came back
   * and rejoined). The master is asked for on every poll: just after a failover the Sentinels may
   * still be settling which node that is.
   */
  async waitForReplicaInSync(timeoutMs: number): Promise<void> {
    await poll(timeoutMs, 'replica in sync', async () => {
      const c = (await this.master()).client();
      try {
        return /slave0:.*state=online/.test(await c.info('replication'));
      } finally {
        c.disconnect();
      }
    });
  }

  private async waitUntilSentinelsSee(others: number, timeoutMs: number): Promise<void> {
    await poll(timeoutMs, 'Sentinels discovering each other', async () => {
      const s = this.sentinel(0, { retryStrategy: () => null });
      try {
        const info = (await s.call('SENTINEL', 'SENTINELS', SENTINEL_MASTER_NAME)) as unknown[];
        return info.length >= others;
      } catch {
        return false;
      } finally {
        s.disconnect();
      }
    });
  }
}

async function poll(timeoutMs: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}
