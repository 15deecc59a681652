import Redis, { Cluster, RedisOptions } from 'ioredis';
import { Logger } from '@nestjs/common';
import type { AppConfig, RedisNode } from '../../config/app-config';
import { isRedisUnavailable } from '../errors/dependency-errors';

/** The main Redis: one server, a Sentinel-managed primary, or a Cluster (ioredis's own clients). */
export type RedisConnection = Redis | Cluster;

const retryStrategy = (attempt: number): number => Math.min(50 * 2 ** attempt, 1000);

/**
 * Clients fail fast while disconnected (no offline queue, bounded command time) so that a Redis
 * outage turns into a quick fallback or 503 instead of requests piling up; they keep reconnecting
 * in the background and recover on their own. Commands left unanswered when a connection drops
 * are not re-sent once it is back (ioredis re-sends them by default, even those whose caller was
 * already told they timed out): a replayed lock acquire would lock the product for a holder that
 * gave up, for a whole lease.
 */
function failFastOptions(commandTimeoutMs: number, name: string): RedisOptions {
  return {
    connectionName: name,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy,
    lazyConnect: true,
    autoResendUnfulfilledCommands: false,
  };
}

/**
 * A client of one server, built from the node's fields alone: ioredis given a URL takes the URL's
 * credentials and TLS over any option (and throws an URIError on a stray % in its password), so
 * REDIS_PASSWORD and REDIS_TLS would be silently ignored there.
 */
export function createRedisClient(node: RedisNode, commandTimeoutMs: number, name: string): Redis {
  const { host, port, db, username, password, tls } = node;
  const client = new Redis({
    ...failFastOptions(commandTimeoutMs, name),
    host,
    port,
    db,
    username,
    password,
    ...(tls ? { tls: {} } : {}),
  });
  // Errors surface on commands; the connection-level event only needs to not crash the process.
  client.on('error', () => undefined);
  return client;
}

/** The client REDIS_MODE asks for. */
export function createRedisConnection(redis: AppConfig['redis'], name: string): RedisConnection {
  if (redis.mode === 'standalone') return createRedisClient(redis.node, redis.commandTimeoutMs, name);
  const { username, password, sentinelPassword, tls } = redis.auth;
  const options: RedisOptions = {
    ...failFastOptions(redis.commandTimeoutMs, name),
    username,
    password,
    ...(tls ? { tls: {} } : {}),
  };
  if (redis.mode === 'sentinel') {
    const client = new Redis({
      ...options,
      sentinels: redis.sentinels,
      name: redis.sentinelName,
      // The Sentinels are asked where the primary is: they need their own password (and TLS) too.
      sentinelPassword,
      ...(tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      sentinelRetryStrategy: retryStrategy,
      // After a failover the old master answers READONLY once it returns as a replica: reconnect.
      reconnectOnError: (error) => /READONLY/.test(error.message),
    });
    client.on('error', () => undefined);
    return client;
  }
  const cluster = new Cluster(redis.clusterNodes, {
    redisOptions: { ...options, lazyConnect: false },
    enableOfflineQueue: false,
    lazyConnect: true,
    clusterRetryStrategy: retryStrategy,
    // During a failover MOVED/CLUSTERDOWN replies are retried briefly, then fail like a timeout.
    maxRedirections: 4,
    retryDelayOnClusterDown: 100,
    retryDelayOnFailover: 100,
    slotsRefreshTimeout: 1000,
  });
  cluster.on('error', () => undefined);
  return cluster;
}

/** Connects, but boots degraded while Redis is unreachable (it reconnects); any other refusal stops the start. */
export async function connectQuietly(client: RedisConnection, timeoutMs = 2000): Promise<void> {
  const connecting = client.connect().catch((error: unknown) => {
    if (!isRedisUnavailable(error)) throw error;
    new Logger('Redis').warn(`starting without Redis, reconnecting meanwhile: ${String(error)}`);
  });
  await Promise.race([connecting, new Promise((r) => setTimeout(r, timeoutMs))]);
}
