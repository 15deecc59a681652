import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

export interface ApiProcessOptions {
  port: number;
  env: Record<string, string>;
  /** Where its stdout/stderr go; nothing is kept when omitted. */
  logFile?: string;
  /** Extra arguments for node itself, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** The bundle to run; `dist/apps/api/main.js` when omitted (the bench may run an earlier commit's build). */
  entry?: string;
  /** The node binary to run it with; this process's own when omitted (the bench runs a baseline on another Node). */
  node?: string;
  /** V8 flags in place of API_NODE_FLAGS (the bench compares other sets with them). */
  v8Flags?: string[];
}

/**
 * V8 flags the API runs with everywhere (`npm start`, the Dockerfile, here).
 *
 * `--max-semi-space-size=32`: under a hot sale a purchase waits tens of ms for its batch, long
 * enough to outlive two scavenges of the default 16 MB young generation and be promoted; with 32 MB
 * semispaces they die young.
 *
 * `--heap-growing-percent=100`: V8 otherwise lets the old generation grow to up to four times what
 * survived the last major GC before it marks again. Under the spike it grew from 34 to 149 MB of
 * which 64 MB were live, and the process never gives those pages back. Capping the growth at twice
 * the live size bounds the peak: in the bench's spike through HAProxy, peak RSS 235-238 MB in three
 * runs against 258-291 MB in four without the flag, at the same goodput; straight at the instance
 * 346 MB against 538 MB at the recording before it. Hot purchases per CPU-second with the flag, over
 * four alternating pairs, were 0.82-1.12x those without it (mean 0.99x, the machine's noise). A
 * factor of 1.3 bounded it further (211 MB) but cost 11-15% of purchases per CPU-second in three of
 * three pairs.
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=32', '--heap-growing-percent=100'];

/** One built API instance (`dist/apps/api/main.js`) as a child process. */
export class ApiProcess {
  private child?: ChildProcess;

  constructor(readonly options: ApiProcessOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  /** Where its /metrics and /health/details answer: the METRICS_PORT listener when set, else the public port. */
  get metricsUrl(): string {
    const port = this.options.env.METRICS_PORT;
    return port ? `http://127.0.0.1:${port}` : this.url;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(readyTimeoutMs = 30_000): Promise<void> {
    const entry = resolve(this.options.entry ?? 'dist/apps/api/main.js');
    if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
    // Unset NODE_ENV means production to the API; a spawned instance is told which it is (jest sets test; the demo and bench development).
    const env = {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV || 'development',
      ...this.options.env,
      PORT: String(this.options.port),
    };
    this.child = spawn(
      this.options.node ?? process.execPath,
      [...(this.options.v8Flags ?? API_NODE_FLAGS), ...(this.options.nodeArgs ?? []), entry],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (this.options.logFile) {
      mkdirSync(resolve(this.options.logFile, '..'), { recursive: true });
      const log = createWriteStream(this.options.logFile, { flags: 'a' });
      this.child.stdout?.pipe(log);
      this.child.stderr?.pipe(log);
    } else {
      this.child.stdout?.resume();
      this.child.stderr?.resume();
    }
    await this.waitUntilListening(readyTimeoutMs);
  }

  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /** SIGTERM (graceful drain) or SIGKILL; resolves when the process is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGCONT');
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  }

  private async waitUntilListening(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running)
        throw new Error(`api on port ${this.options.port} exited during start-up (code ${this.child?.exitCode})`);
      try {
        const res = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(1000) });
        if (res.status === 200 || res.status === 503) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`api on port ${this.options.port} did not answer /health within ${timeoutMs} ms`);
  }
}
