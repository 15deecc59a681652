
/** Why a purchase was answered 503 OVERLOADED (the `reason` label of purchase_refused_total). */
export type RefusalReason =
  /** the unit's queue or all queues together are at their cap */
  | 'queue_full'
  /** the estimated wait would end past the deadline */
  | 'wait_estimate'
  /** still queued (or just handed the lock) when its deadline came */
  | 'expired'
  /** the product lock was not had before the batch's deadline */
  | 'lock_wait'
  /** Postgres cancelled the batch's statement at the deadline (a row lock it waited on) */
  | 'statement_bound';

/** What admission knows about one stock unit when a purchase arrives. */
export interface UnitLoad {
  /** purchases queued ahead of the newcomer */
  queued: number;
  /** the batch now under the lock or waiting for it */
  inFlight?: { size: number; startedAt: number; endsBy: number };
}

export interface AdmissionLimits {
  maxBatch: number;
  /** batches a unit must have measured before its estimate refuses anyone (a cold process is slow) */
  minSamples: number;
  /** time kept back for answering after a batch ends */
  answerMarginMs: number;
  unitCapFloor: number;
  unitCapCeiling: number;
}

export type Verdict = { admit: true } | { admit: false; reason: RefusalReason; retryAfterS: number };

/**
 * How long the batch in flight still needs: the rest of its expected time while within it; once
 * overrunning (a stalled row lock, a starved process), as long again as it has run so far, at most
 * until the bound it runs under. The estimate grows with a stall instead of jumping to the bound
 * on the first hiccup.
 */
export function inFlightLeftMs(load: UnitLoad, model: ServiceTimeModel, now: number): number {
  if (!load.inFlight) return 0;
  const expected = model.batchMs(load.inFlight.size);
  const elapsed = now - load.inFlight.startedAt;
  if (elapsed < expected) return expected - elapsed;
  return Math.max(0, Math.min(elapsed, load.inFlight.endsBy - now));
}

/**
 * From now until a purchase at `position` in the queue is answered: the batch in flight, the full
 * batches ahead of it, then its own batch (FIFO, `maxBatch` per lock hold).
 */
export function completionMs(load: UnitLoad, position: number, model: ServiceTimeModel, maxBatch: number, now: number): number {
  const fullBatchesAhead = Math.floor(position / maxBatch);
  const ownBatch = (position % maxBatch) + 1;
  return inFlightLeftMs(load, model, now) + fullBatchesAhead * model.batchMs(maxBatch) + model.batchMs(ownBatch);
}

/** Retry-After for a refusal: the time the unit's present backlog takes to clear, whole seconds. */
export function retryAfterS(backlogMs: number): number {
  return Math.min(60, Math.max(1, Math.ceil(backlogMs / 1000)));
}

/** How many purchases one unit's queue may hold: what its measured rate serves in one deadline. */
export function unitCap(model: ServiceTimeModel, deadlineMs: number, limits: AdmissionLimits): number {
  const servable = Math.floor(deadlineMs / Math.max(model.batchMs(limits.maxBatch), 0.001)) * limits.maxBatch;
  return Math.min(limits.unitCapCeiling, Math.max(limits.unitCapFloor, servable));
}

/**
 * Admits a purchase that can be answered by its deadline and refuses one that cannot, at once and
 * with nothing done. `remainingMs` is what is left of its deadline now.
 */
export function decide(load: UnitLoad, remainingMs: number, model: ServiceTimeModel, deadlineMs: number, limits: AdmissionLimits, now: number): Verdict {
  const done = completionMs(load, load.queued, model, limits.maxBatch, now);
  const refuse = (reason: RefusalReason): Verdict => ({ admit: false, reason, retryAfterS: retryAfterS(done) });
  if (load.queued >= unitCap(model, deadlineMs, limits)) return refuse('queue_full');
  if (remainingMs <= limits.answerMarginMs) return refuse('wait_estimate');
  // An idle unit always admits: its batch runs under the deadline's bound and answers in time.
  if (load.queued === 0 && !load.inFlight) return { admit: true };
  // Until measured, the caps and the expiry at the deadline bound the wait; the estimate does not.
  if (model.samples < limits.minSamples) return { admit: true };
  if (done > remainingMs - limits.answerMarginMs) return refuse('wait_estimate');
  return { admit: true };
}

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
