import { RedisClusterProcess } from '../../test/support/redis-cluster';
import { RedisSentinelGroup } from '../../test/support/redis-sentinel';
import { ensureRedis } from './redis';

export type RedisTopology = 'standalone' | 'cluster' | 'sentinel';
export const REDIS_TOPOLOGIES: readonly RedisTopology[] = ['standalone', 'cluster', 'sentinel'];

export interface RunningRedis {
  /** What the API instances need to reach it (REDIS_MODE and its variables). */
  env: Record<string, string>;
  description: string;
  stop(): Promise<void>;
}

/**
 * Redis for a run: the developer's (or a private) single server, or a private 6-node Cluster,
 * or a private primary + replica under 3 Sentinels, each on free ports.
 */
export async function startRedisTopology(topology: RedisTopology): Promise<RunningRedis> {
  if (topology === 'cluster') {
    const cluster = await RedisClusterProcess.start();
    return {
      env: cluster.env,
      description: `a private Redis Cluster (3 primaries, 3 replicas) at ${cluster.nodeList}`,
      stop: () => cluster.stop(),
    };
  }
  if (topology === 'sentinel') {
    const group = await RedisSentinelGroup.start();
    return {
      env: group.env,
      description: `a private Redis primary + replica under 3 Sentinels at ${group.sentinelList}`,
      stop: () => group.stop(),
    };
  }
  const redis = await ensureRedis();
  return {
    env: { REDIS_MODE: 'standalone', REDIS_URL: redis.url },
    description: `Redis at ${redis.url}`,
    stop: () => redis.stop(),
  };
}
