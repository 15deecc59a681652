import { execFile } from 'node:child_process';
import { createConnection } from 'node:net';
import { promisify } from 'node:util';

/**
 * Stands in for the suite's `test/shell.ts`, which starts and stops its Redis servers with
 * docker compose: here server N is a private redis-server on the port of `REDIS_URI<N>`,
 * persisting nothing, its files in `SEMAPHORE_SUITE_DIR` (see run.sh).
 */
const run = promisify(execFile);

function portOf(num: number): number {
  const uri = process.env[`REDIS_URI${num}`];
  if (!uri) throw new Error(`REDIS_URI${num} is not set: run the suite through run.sh`);
  return Number(new URL(uri).port);
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function until(port: number, up: boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await answers(port)) === up) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on ${port} did not come ${up ? 'up' : 'down'}`);
}

export async function upRedisServer(num: number): Promise<void> {
  const port = portOf(num);
  if (await answers(port)) return;
  const dir = process.env.SEMAPHORE_SUITE_DIR ?? '.';
  await run('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'yes', '--pidfile', `${dir}/redis-${port}.pid`, '--logfile', `${dir}/redis-${port}.log`]);
  await until(port, true);
}

export async function downRedisServer(num: number): Promise<void> {
  const port = portOf(num);
  await run('redis-cli', ['-p', String(port), 'shutdown', 'nosave']).catch(() => undefined);
  await until(port, false);
}
