import { Locker } from './lockers/types';
import { OverlapProbe } from './overlap-probe';
import { machineNow, SectionRecord } from './stats';

export interface HotRunOptions {
  locker: Locker;
  key: string;
  ttlMs: number;
  workers: number;
  idPrefix: string;
  /** Epoch ms at which every worker (in every process) starts wanting the lock. */
  startAt: number;
  durationMs: number;
  criticalMs: number;
  probes: OverlapProbe[];
}

export interface HotRunResult {
  /** Every section, including the drain after the window (those skip the critical work). */
  records: SectionRecord[];
  /** One per acquisition that began inside the window. */
  waitsMs: number[];
  /** Acquire calls that threw (e.g. retries exhausted) and were retried by the worker. */
  failures: number;
  /** Waits that began inside the window and ended in a failure after it (counted at their length). */
  censored: number;
  overlaps: number;
  bookkeepingCommands: number;
}

/** A CPU-bound critical section: exact, and it keeps the event loop as busy as real work would. */
function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

const sleepUntil = (atMs: number) => new Promise((r) => setTimeout(r, Math.max(0, atMs - machineNow())));

/**
 * N workers hammering one key: want, hold for `criticalMs`, release, want again at once.
 * After the window, workers already waiting finish their wait and release straight away, so
 * every wait that started in the window is measured, not cut off.
 */
export async function runHotWorkers(o: HotRunOptions): Promise<HotRunResult> {
  const end = o.startAt + o.durationMs;
  const result: HotRunResult = { records: [], waitsMs: [], failures: 0, censored: 0, overlaps: 0, bookkeepingCommands: 0 };

  const worker = async (holder: string) => {
    await sleepUntil(o.startAt);
    while (machineNow() < end) {
      const wantedAt = performance.now();
      const held = await acquireUntilDone(o, end, result);
      const waited = performance.now() - wantedAt;
      result.waitsMs.push(waited);
      if (!held) {
        result.censored++;
        return;
      }
      const acquiredAt = machineNow();
      o.probes.forEach((p) => p.enter());
      if (acquiredAt < end) busyWait(o.criticalMs);
      o.probes.forEach((p) => p.exit());
      result.records.push({ holder, acquiredAt, releasedAt: machineNow() });
      await held.release().catch(() => void result.failures++);
    }
  };

  await Promise.all(Array.from({ length: o.workers }, (_, i) => worker(`${o.idPrefix}${i}`)));
  for (const probe of o.probes) {
    const settled = await probe.settle();
    result.overlaps += settled.overlaps;
    result.bookkeepingCommands += settled.bookkeepingCommands;
  }
  return result;
}

/** Retries failed acquires inside the window; after it, one failure ends the wait. */
async function acquireUntilDone(o: HotRunOptions, end: number, result: HotRunResult) {
  for (;;) {
    try {
      return await o.locker.acquire(o.key, o.ttlMs);
    } catch {
      result.failures++;
      if (machineNow() >= end) return undefined;
    }
  }
}
