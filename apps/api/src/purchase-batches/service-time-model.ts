/**
 * The measured cost of one batch on one stock unit, as a line: `overheadMs + perItemMs × size`.
 * The overhead is the lock hand-over and the statement's round trip, paid once per batch; the
 * per-item part is what each purchase adds inside the statement. Both come from a least-squares
 * fit over recent batches with exponential forgetting, so the model follows the machine as its
 * load changes. Until batches of different sizes have been seen the fit is undetermined: the
 * prior's per-item cost is kept (or less, if the batches were faster than that) and the rest of
 * the measured time counts as overhead.
 */
export class ServiceTimeModel {
  private n = 0;
  private meanSize = 0;
  private meanMs = 0;
  private meanSize2 = 0;
  private meanSizeMs = 0;

  /**
   * @param alpha weight of the newest batch in the running means (0..1)
   * @param prior the line used until the first batch is measured
   */
  constructor(
    private readonly alpha = 0.1,
    private readonly prior = { overheadMs: 5, perItemMs: 1 },
  ) {}

  observe(size: number, durationMs: number): void {
    if (size <= 0 || !Number.isFinite(durationMs) || durationMs < 0) return;
    // The first observations weigh more (1, 1/2, 1/3...) until alpha takes over.
    const w = Math.max(this.alpha, 1 / ++this.n);
    this.meanSize += w * (size - this.meanSize);
    this.meanMs += w * (durationMs - this.meanMs);
    this.meanSize2 += w * (size * size - this.meanSize2);
    this.meanSizeMs += w * (size * durationMs - this.meanSizeMs);
  }

  /** The fitted line; the prior before any batch was measured. */
  line(): { overheadMs: number; perItemMs: number } {
    if (this.n === 0) return this.prior;
    const variance = this.meanSize2 - this.meanSize * this.meanSize;
    const covariance = this.meanSizeMs - this.meanSize * this.meanMs;
    const slope = variance > 0.25 ? covariance / variance : NaN;
    if (!(slope > 0)) {
      const perItemMs = Math.min(this.prior.perItemMs, this.meanMs / this.meanSize);
      return { overheadMs: this.meanMs - perItemMs * this.meanSize, perItemMs };
    }
    // A negative intercept (noise) would make small batches look free.
    const overheadMs = Math.max(0, this.meanMs - slope * this.meanSize);
    return { overheadMs, perItemMs: overheadMs === 0 ? this.meanMs / this.meanSize : slope };
  }

  /** How many batches were measured. */
  get samples(): number {
    return this.n;
  }

  /** Expected time of one batch of `size` purchases. */
  batchMs(size: number): number {
    const { overheadMs, perItemMs } = this.line();
    return overheadMs + perItemMs * size;
  }
}

/** What others may read of a unit's model: its estimate and how much it has measured. */
export type ServiceTimeEstimate = Pick<ServiceTimeModel, 'batchMs' | 'samples'>;
