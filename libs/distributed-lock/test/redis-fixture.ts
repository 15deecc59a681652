import type Redis from 'ioredis';
import { RedisServerProcess } from '../../../test/support/redis-server';

/** A private redis-server per spec file, with clients that are all closed afterwards. */
export class RedisFixture {
  private readonly clients: Redis[] = [];

  private constructor(readonly server: RedisServerProcess) {}

  static async start(): Promise<RedisFixture> {
    return new RedisFixture(await RedisServerProcess.start());
  }

  client(options: Record<string, unknown> = {}): Redis {
    const client = this.server.client(options);
    client.on('error', () => undefined);
    this.clients.push(client);
    return client;
  }

  async stop(): Promise<void> {
    this.clients.forEach((c) => c.disconnect());
    await this.server.stop();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every 10 ms for up to `withinMs` (2 s: a loaded machine can be slow to get there). */
export async function until(condition: () => boolean | Promise<boolean>, withinMs = 2000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await sleep(10);
  }
  throw new Error(`condition not met within ${withinMs / 1000} s`);
}

/** Blocks the event loop, like a long GC pause or a CPU-bound stretch of work. */
export function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}
