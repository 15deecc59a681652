import { DistributedLock } from '@app/distributed-lock';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** 3 lock instances (one client each, as 3 API processes would have) contend for one key. */
export async function contend(locks: DistributedLock[], key: string, perInstance: number, holdMs: number) {
  let inside = 0;
  let overlaps = 0;
  const fences: number[] = [];
  const startedAt = Date.now();
  await Promise.all(
    locks.flatMap((lock) =>
      Array.from({ length: perInstance }, () =>
        lock.using(key, { waitMs: 60_000, ttlMs: 5000 }, async (_signal, held) => {
          inside += 1;
          if (inside > 1) overlaps += 1;
          fences.push(held.fence);
          await sleep(holdMs);
          inside -= 1;
        }),
      ),
    ),
  );
  return { overlaps, fences, elapsedMs: Date.now() - startedAt };
}

export function expectIncreasing(fences: number[]): void {
  expect(fences.every((f, i) => i === 0 || f > fences[i - 1])).toBe(true);
}

