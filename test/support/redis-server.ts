import { ChildProcess, spawn } from 'node:child_process';
import Redis from 'ioredis';
import { freePort } from './free-port';

/**
 * A private redis-server process on a free port, for tests that need a real Redis they may
 * kill, pause or restart without touching anyone else's data.
 */
export class RedisServerProcess {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    private readonly extraArgs: string[],
  ) {}

  static async start(extraArgs: string[] = [], port?: number): Promise<RedisServerProcess> {
    const server = new RedisServerProcess(port ?? (await freePort()), extraArgs);
    await server.startProcess();
    return server;
  }

  /** The `--requirepass` it was started with, if any. */
  get password(): string | undefined {
    const at = this.extraArgs.indexOf('--requirepass');
    return at === -1 ? undefined : this.extraArgs[at + 1];
  }

  get url(): string {
    return `redis://${this.password ? `:${encodeURIComponent(this.password)}@` : ''}127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A new ioredis client for this server; the caller quits it. */
  client(options: Record<string, unknown> = {}): Redis {
    return new Redis(this.port, '127.0.0.1', { maxRetriesPerRequest: 1, password: this.password, ...options });
  }

  /** Starts the process again on the same port, empty (nothing is persisted). */
  async restart(): Promise<void> {
    await this.stop();
    await this.startProcess();
  }

  /** SIGKILL: the node vanishes with everything it held. */
  async kill(): Promise<void> {
    await this.stop('SIGKILL');
  }

  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT');
    child.kill(signal);
    await exited;
    this.child = undefined;
  }

  private async startProcess(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...this.extraArgs];
    this.child = spawn(process.env.REDIS_SERVER_BIN ?? 'redis-server', args, { stdio: 'ignore' });
    this.child.on('error', () => undefined);
    await this.waitUntilReady();
  }

  private async waitUntilReady(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const probe = new Redis(this.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, password: this.password });
      probe.on('error', () => undefined); // refused until the server listens: expected, and retried here
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        probe.disconnect();
      }
    }
    throw new Error(`redis-server on port ${this.port} did not become ready (is redis-server installed?)`);
  }
}
