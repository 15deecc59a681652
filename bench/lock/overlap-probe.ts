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
