import type { Cluster } from 'ioredis';
import { extendScript } from '../scripts/extend';
import { clusterSlot } from './cluster-slot';

/**
 * WAIT on a Cluster. WAIT counts the replicas that have every earlier write *of this connection*,
 * and has no key, so sent alone it would land on an arbitrary node. Pipelined right behind a
 * compare-and-extend of the lock (a write of ours, on the key's own node), it waits on the shard
 * that holds the lock. Keys in several slots are confirmed per slot; returns the fewest acks.
 */
export async function waitOnShards(client: Cluster, lockKeys: string[], token: string, ttlMs: number, replicas: number, timeoutMs: number): Promise<number> {
  const bySlot = new Map<number, string[]>();
  for (const key of lockKeys) bySlot.set(clusterSlot(key), [...(bySlot.get(clusterSlot(key)) ?? []), key]);
  const acks = await Promise.all(
    [...bySlot.values()].map(async (keys) => {
      const pipeline = client.pipeline();
      pipeline.eval(extendScript.source, keys.length, ...keys, token, ttlMs);
      pipeline.wait(replicas, timeoutMs);
      const replies = (await pipeline.exec()) ?? [];
      const [extendError, extended] = replies[0] ?? [new Error('no reply'), null];
      const [waitError, acked] = replies[1] ?? [new Error('no reply'), null];
      if (extendError ?? waitError) throw extendError ?? waitError;
      return extended === 1 ? Number(acked) : 0;
    }),
  );
  return Math.min(...acks);
}
