import Redis, { RedisOptions } from 'ioredis';

/**
 * Clients fail fast while disconnected (no offline queue, bounded command time) so that a Redis
 * outage turns into a quick fallback or 503 instead of requests piling up; they keep reconnecting
 * in the background and recover on their own.
 */
export function createRedisClient(url: string, commandTimeoutMs: number, name: string): Redis {
  const options: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 1000),
    lazyConnect: true,
  };
  const client = new Redis(url, options);
  // Errors surface on commands; the connection-level event only needs to not crash the process.
  client.on('error', () => undefined);
  return client;
}

/** Connects, but boots degraded rather than refusing to start when Redis is down. */
export async function connectQuietly(client: Redis, timeoutMs = 2000): Promise<void> {
  await Promise.race([client.connect().catch(() => undefined), new Promise((r) => setTimeout(r, timeoutMs))]);
}
