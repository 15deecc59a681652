import { ChildProcess, spawn } from 'node:child_process';
import { freePort } from '../../test/support/free-port';
import { redisAnswers, waitFor } from './probe';
import { hasCommand, installPackages } from './system-packages';

export interface RunningService {
  url: string;
  /** True when we started it (and stop() will stop it). */
  private: boolean;
  stop(): Promise<void>;
}

export function ensureRedisBinary(): void {
  if (!hasCommand(process.env.REDIS_SERVER_BIN ?? 'redis-server'))
    installPackages(['redis-server'], 'redis-server is missing');
}

/** Uses the Redis at `url` when it answers; otherwise starts a private redis-server on a free port. */
export async function ensureRedis(url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<RunningService> {
  if (await redisAnswers(url)) return { url, private: false, stop: async () => undefined };
  ensureRedisBinary();
  const port = await freePort();
  const child = spawn(
    process.env.REDIS_SERVER_BIN ?? 'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const privateUrl = `redis://127.0.0.1:${port}`;
  await waitFor(() => redisAnswers(privateUrl), 10_000, `private redis-server on port ${port}`);
  console.log(`[infra] started a private redis-server at ${privateUrl}`);
  return { url: privateUrl, private: true, stop: () => stopChild(child) };
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
