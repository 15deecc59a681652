import Redis from 'ioredis';

/** Counts moments when more than one holder is inside the critical section of one key. */
export interface OverlapProbe {
  enter(): void;
  exit(): void;
  /** Waits for pending checks, then returns the overlaps seen and the bookkeeping commands sent. */
  settle(): Promise<{ overlaps: number; bookkeepingCommands: number }>;
}

/** In one process: a plain counter, checked synchronously. */
export class LocalOverlapProbe implements OverlapProbe {
  private inFlight = 0;
  private overlaps = 0;

  enter(): void {
    if (++this.inFlight !== 1) this.overlaps++;
  }

  exit(): void {
    this.inFlight--;
  }

  async settle(): Promise<{ overlaps: number; bookkeepingCommands: number }> {
    return { overlaps: this.overlaps, bookkeepingCommands: 0 };
  }
}

/**
 * Across processes: INCR on entry, DECR before release, on a bookkeeping connection. The replies
 * are checked off the critical path so the probe does not lengthen the section; the DECR is
 * written before the lock's release, so Redis sees it before any next holder's INCR.
 */
export class RedisOverlapProbe implements OverlapProbe {
  private overlaps = 0;
  private commands = 0;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly redis: Redis,
    private readonly counterKey: string,
  ) {}

  enter(): void {
    this.track(this.redis.incr(this.counterKey).then((n) => void (n !== 1 && this.overlaps++)));
  }

  exit(): void {
    this.track(this.redis.decr(this.counterKey));
  }

  async settle(): Promise<{ overlaps: number; bookkeepingCommands: number }> {
    await Promise.all(this.pending);
    return { overlaps: this.overlaps, bookkeepingCommands: this.commands };
  }

  private track(promise: Promise<unknown>): void {
    this.commands++;
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }
}
