import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../test/support/free-port';
import { hasCommand, installPackages } from '../../scripts/infra/system-packages';
import { stopChild } from './child-stop';

const CONFIG_DIR = resolve(__dirname, '../../deploy/haproxy');

export interface Balancer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface BalancerOptions {
  /** Requests in flight to the instance at a time (API_MAXCONN). */
  maxConn: number;
  /** The longest a request waits in HAProxy's queue (BALANCER_QUEUE_MS). */
  queueMs: number;
}

/** Installs HAProxy (Debian package `haproxy`) when it is missing. */
export function ensureHaproxy(): void {
  if (!hasCommand('haproxy')) installPackages(['haproxy'], 'the spike through a balancer runs deploy/haproxy/haproxy.cfg');
}

/**
 * deploy/haproxy/haproxy.cfg in front of one instance, in the foreground, as a child process.
 * Resolves once a request through it reaches the instance's liveness route, unless told not to wait.
 */
export async function startBalancer(apiPort: number, options: BalancerOptions, { waitForLive = true } = {}): Promise<Balancer> {
  const port = await freePort();
  const env = {
    ...process.env,
    BALANCER_BIND: `127.0.0.1:${port}`,
    API_SERVER: `127.0.0.1:${apiPort}`,
    API_MAXCONN: String(options.maxConn),
    BALANCER_QUEUE_MS: String(options.queueMs),
    HAPROXY_DIR: CONFIG_DIR,
  };
  // Through a shell that raises the open-file limit first: HAProxy sizes its connection limit from it.
  const child: ChildProcess = spawn('sh', ['-c', `ulimit -n "$(ulimit -Hn)" && exec haproxy -f '${CONFIG_DIR}/haproxy.cfg'`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${stderr.slice(-500)}`);
    const status = await fetch(`${url}/health/live`).then((r) => r.status, () => 0);
    if (waitForLive ? status === 200 : status !== 0) break;
    if (attempt > 100) throw new Error(`haproxy did not answer on ${url}: ${stderr.slice(-500)}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  return {
    url,
    pid: child.pid!,
    stop: () => stopChild(child),
  };
}
