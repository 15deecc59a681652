import { BatchRefusedError } from './deadline-refusal';
import { OverloadedException } from './overloaded.error';

/*
 * The purchase queue of one stock unit: first the admission policy (can a newcomer be answered by
 * its deadline? the service-time model its estimates come from), then the queue that owns the
 * purchases, the batch in flight, that model and the timer.
 */

// ---- admission policy

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
export function completionMs(
  load: UnitLoad,
  position: number,
  model: ServiceTimeModel,
  maxBatch: number,
  now: number,
): number {
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
export function decide(
  load: UnitLoad,
  remainingMs: number,
  model: ServiceTimeModel,
  deadlineMs: number,
  limits: AdmissionLimits,
  now: number,
): Verdict {
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

// ---- the queue

export const monotonicNow = (): number => performance.now();

/**
 * A purchase's deadline, one value made where the request enters the pipeline (its arrival plus
 * PURCHASE_DEADLINE_MS, on monotonicNow's clock) and handed down: the overload check, the queue and
 * its expiry timer, the batch's lock wait and statement bound, the late-answer count all read it;
 * none computes it again. The purchase itself carries these fields (no object of its own).
 */
export interface PurchaseDeadline {
  /** When the request arrived. */
  arrivedAt: number;
  /** When it must be answered. */
  deadlineAt: number;
}

/** The window a batch runs in: from its start until its oldest purchase must be answered. */
export interface BatchWindow {
  startedAt: number;
  endsBy: number;
}

/**
 * Serves one batch of a queue: the outcome of each of its purchases (in order), and whether the
 * batch's time measured the unit's service (a batch that met a fault did not; the queue still
 * learns from one that ran longer than it expected, see serveBatch). Throws BatchRefusedError to
 * have the whole batch answered OVERLOADED (nothing done); any other error is every purchase's
 * answer.
 */
export type ServeBatch<I, O> = (items: I[], window: BatchWindow) => Promise<{ outcomes: O[]; measured: boolean }>;

/** What the queue reports to the instance-wide bookkeeping of all queues (ProductQueues). */
export interface QueueHooks {
  /** Purchases left the queue (served, expired or refused) */
  left(count: number): void;
  refused(reason: RefusalReason, count: number): void;
  waited(seconds: number): void;
  /** Time kept back from a deadline for answering (fixed margin plus the event loop's lag). */
  answerMarginMs(): number;
}

interface Queued<I, O> {
  item: I;
  arrivedAt: number;
  deadline: number;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

/** A read-only view of one queue, for the waiting room's pacing and for tests. */
export interface QueueSnapshot {
  queued: number;
  inFlight: UnitLoad['inFlight'];
  /** Expected time of a batch of `size` purchases by this queue's measurements. */
  batchMs(size: number): number;
  measuredBatches: number;
}

/**
 * The purchase queue of one stock unit (a product, or one segment of it) in this instance, and
 * the sole owner of everything about it: its purchases in arrival order (hence deadline order:
 * every purchase gets the same time from its arrival), the batch in flight, the service-time
 * model those batches feed, the one timer that refuses purchases whose time ran out while they
 * waited, and every resolve and reject. `serve` only turns a batch into outcomes.
 */
export class ProductQueue<I, O> {
  private readonly model = new ServiceTimeModel();
  private items: Queued<I, O>[] = [];
  private inFlight?: UnitLoad['inFlight'];
  private draining = false;
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  /** When the model last learnt from a batch (monotonicNow's clock). */
  private observedAt = monotonicNow();

  constructor(
    private readonly serve: ServeBatch<I, O>,
    private readonly hooks: QueueHooks,
    private readonly limits: () => AdmissionLimits,
    /**
     * PURCHASE_DEADLINE_MS: sizes the queue (what it serves in one deadline) and spaces its probes
     * (see probing), never a purchase's deadline.
     */
    private readonly deadlineMs: number,
  ) {}

  /** Neither queued purchases nor a batch under way: the queue may be dropped. */
  get idle(): boolean {
    return this.items.length === 0 && !this.draining;
  }

  snapshot(): QueueSnapshot {
    return {
      queued: this.items.length,
      inFlight: this.inFlight,
      batchMs: (size) => this.model.batchMs(size),
      measuredBatches: this.model.samples,
    };
  }

  /** Whether a purchase with `remainingMs` of its deadline left can be answered in time if queued now. */
  verdict(remainingMs: number, now: number): Verdict {
    return decide(this.load(), remainingMs, this.model, this.deadlineMs, this.limits(), now);
  }

  /** Seconds until the present backlog clears: the Retry-After of a refusal. */
  retryAfterS(now: number): number {
    return retryAfterS(completionMs(this.load(), this.items.length, this.model, this.limits().maxBatch, now));
  }

  /** Queues an admitted purchase (see verdict); settles with its outcome, or rejects with its refusal. */
  offer(item: I, { arrivedAt, deadlineAt }: PurchaseDeadline): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const queued: Queued<I, O> = { item, arrivedAt, deadline: deadlineAt, resolve, reject };
      // By deadline (by arrival, every purchase getting the same time): one that arrived earlier but
      // got here later goes ahead of later ones.
      let at = this.items.length;
      while (at > 0 && this.items[at - 1].deadline > deadlineAt) at--;
      this.items.splice(at, 0, queued);
      this.arm();
      if (!this.draining) void this.drain();
    });
  }

  /** Stops the timer: the queue is being dropped. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private load(): UnitLoad {
    return { queued: this.items.length, inFlight: this.inFlight };
  }

  /** Serves batches until the queue is empty; a batch that throws is answered and the loop goes on. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let batch = this.take(); batch.length; batch = this.take()) await this.serveBatch(batch);
    } finally {
      this.draining = false;
    }
  }

  /**
   * The next batch, oldest first, after refusing the purchases that cannot make their deadline:
   * those with less time left than the batch needs. A doomed head would otherwise bound the whole
   * batch and sink the purchases behind it that still had time.
   */
  private take(now = monotonicNow()): Queued<I, O>[] {
    const max = this.limits().maxBatch;
    this.expireDue(this.probing(now) ? 0 : this.model.batchMs(Math.min(this.items.length, max)));
    const batch = this.items.splice(0, max);
    this.arm();
    this.hooks.left(batch.length);
    for (const queued of batch) this.hooks.waited((now - queued.arrivedAt) / 1000);
    return batch;
  }

  /**
   * Whether a lone purchase runs even though the model expects it to miss its deadline: when the
   * model has learnt nothing for a whole deadline. Refused on an estimate, no batch runs and the
   * estimate never changes: one slow batch (a stalled reply at the deadline's edge) would refuse the
   * unit's every later purchase. So once per deadline at most, a lone purchase is served under its
   * own deadline's bound as a probe, and its batch teaches the model again. While batches run (a
   * slow dependency, a crowd), the model is fresh and the estimate decides.
   */
  private probing(now: number): boolean {
    return this.items.length === 1 && now - this.observedAt >= this.deadlineMs;
  }

  /** One batch, bounded by its oldest purchase's deadline (the queue is FIFO). */
  private async serveBatch(batch: Queued<I, O>[]): Promise<void> {
    const startedAt = monotonicNow();
    const endsBy = batch[0].deadline - this.hooks.answerMarginMs();
    this.inFlight = { size: batch.length, startedAt, endsBy };
    try {
      const { outcomes, measured } = await this.serve(
        batch.map((queued) => queued.item),
        { startedAt, endsBy },
      );
      batch.forEach((queued, i) => queued.resolve(outcomes[i]));
      const elapsed = monotonicNow() - startedAt;
      // A batch that lost its answer measured a fault, unless it overran the estimate: then it
      // shows the service at least that slow, and leaving it out would keep only the fast ones.
      if (measured || elapsed > this.model.batchMs(batch.length)) {
        this.model.observe(batch.length, elapsed);
        this.observedAt = monotonicNow();
      }
    } catch (error) {
      if (error instanceof BatchRefusedError) this.refuse(batch, error.reason);
      else for (const queued of batch) queued.reject(error);
    } finally {
      this.inFlight = undefined;
    }
  }

  /** Answers purchases OVERLOADED for `reason`; nothing was done for them. */
  private refuse(items: Queued<I, O>[], reason: RefusalReason): void {
    if (!items.length) return;
    this.hooks.refused(reason, items.length);
    const error = new OverloadedException(reason, this.retryAfterS(monotonicNow()));
    for (const queued of items) queued.reject(error);
  }

  private expireDue(needMs = 0): void {
    const now = monotonicNow() + needMs;
    const margin = this.hooks.answerMarginMs();
    let due = 0;
    while (due < this.items.length && this.items[due].deadline - margin <= now) due++;
    if (!due) return;
    const expired = this.items.splice(0, due);
    this.hooks.left(expired.length);
    this.refuse(expired, 'expired');
  }

  /** One timer, set for the head's deadline, refuses purchases whose time ran out while they waited. */
  private arm(): void {
    const head = this.items[0];
    if (!head) return this.close();
    const at = head.deadline - this.hooks.answerMarginMs();
    if (this.timer && this.timerAt <= at) return; // fires early at worst, then re-arms
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.expireDue();
        this.arm();
      },
      Math.max(0, at - monotonicNow()),
    );
    this.timer.unref();
  }
}
