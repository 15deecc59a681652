import type { Redis } from 'ioredis';
import { DistributedLock } from '@app/distributed-lock';
import { eventually } from './api-client';
import type { RedisServerProcess } from './redis-server';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** 3 lock instances (one client each, as 3 API processes would have) contend for one key. */
export async function contend(locks: DistributedLock[], key: string, perInstance: number, holdMs: number) {
  let inside = 0;
  let overlaps = 0;
  const fences: number[] = [];
  /** Which instance held the lock, in order; a change is a handoff between processes. */
  const holders: number[] = [];
  await Promise.all(
    locks.flatMap((lock, instance) =>
      Array.from({ length: perInstance }, () =>
        lock.using(key, { waitMs: 60_000, ttlMs: 5000 }, async (_signal, held) => {
          inside += 1;
          if (inside > 1) overlaps += 1;
          fences.push(held.fence);
          holders.push(instance);
          await sleep(holdMs);
          inside -= 1;
        }),
      ),
    ),
  );
  const crossInstanceHandoffs = holders.filter((h, i) => i > 0 && h !== holders[i - 1]).length;
  return { overlaps, fences, crossInstanceHandoffs };
}

export function expectIncreasing(fences: number[]): void {
  expect(fences.every((f, i) => i === 0 || f > fences[i - 1])).toBe(true);
}

/**
 * Counts the messages published on a lock's wake channel while it is open: releases announce
 * themselves there to the waiters of other processes. `sharded`: SSUBSCRIBE (a Cluster shard).
 */
export async function listenForWakes(client: Redis, channel: string, sharded: boolean): Promise<{ count: () => number; close: () => void }> {
  let count = 0;
  client.on(sharded ? 'smessage' : 'message', (from: string) => {
    if (from === channel) count += 1;
  });
  await (sharded ? client.ssubscribe(channel) : client.subscribe(channel));
  return { count: () => count, close: () => client.disconnect() };
}

/**
 * Resolves once every replica of `primary` has acknowledged all it had been sent when called
 * (replication is asynchronous). The target is the primary's offset at the call: writes that go
 * on meanwhile (a waiting room's ticks) would otherwise keep it ahead of the once-a-second acks.
 */
export async function replicasCaughtUp(primary: RedisServerProcess, timeoutMs = 10_000): Promise<void> {
  const client = primary.client();
  try {
    const target = Number(/master_repl_offset:(\d+)/.exec(await client.info('replication'))?.[1]);
    await eventually(
      async () => {
        const info = await client.info('replication');
        const acked = [...info.matchAll(/^slave\d+:.*\boffset=(\d+)/gm)].map((m) => Number(m[1]));
        return acked.length > 0 && acked.every((o) => o >= target);
      },
      timeoutMs,
      20,
      'the replicas to acknowledge the stream',
    );
  } finally {
    client.disconnect();
  }
}
