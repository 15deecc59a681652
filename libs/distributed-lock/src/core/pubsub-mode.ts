import type { Cluster } from 'ioredis';
import { isClusterClient } from './backends/cluster-slot';
import type { RedisClient } from './lua-script';

// Clients found to lack sharded pub/sub (a Redis 6 Cluster answers SPUBLISH/SSUBSCRIBE with
// "unknown command"); they fall back to PUBLISH/SUBSCRIBE, which a Cluster broadcasts to all nodes.
const unsharded = new WeakSet<object>();

/**
 * Whether lock announcements on `client` go by sharded pub/sub: on a Cluster, yes (Redis 7+), so
 * a release reaches only the shard that owns the key instead of being copied to every node over
 * the cluster bus. On a single server or under Sentinel plain pub/sub is the same thing.
 */
export function usesShardedPubSub(client: RedisClient): boolean {
  return isClusterClient(client) && !unsharded.has(client);
}

export function markUnsharded(client: RedisClient): void {
  unsharded.add(client);
}

export function isUnknownShardedCommand(error: unknown): boolean {
  return error instanceof Error && /unknown (redis )?command/i.test(error.message);
}

/** The waiters' subscriber: a Cluster copy must be created with sharded subscribers enabled. */
export function subscriberFor(client: RedisClient): RedisClient {
  if (!usesShardedPubSub(client)) return client.duplicate();
  return (client as Cluster).duplicate([], { shardedSubscribers: true });
}
