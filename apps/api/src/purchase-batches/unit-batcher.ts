import {
  ADMISSION_LIMITS,
  AdmissionLimits,
  admissionVerdict,
  BatchInFlight,
  completionMs,
  Refusal,
  refusal,
  UnitLoad,
  Verdict,
} from './admission-rule';
import type { BatchMetrics } from './batch.metrics';
import { BatchRefusedError } from './batch-refusal';
import { OverloadedException, RefusalReason } from './overloaded.error';
import { deadlineNow, PurchaseDeadline, PurchaseDeadlines } from './purchase-deadline';
import { ServiceTimeEstimate, ServiceTimeModel } from './service-time-model';

/** The time a batch runs in: from its start until its oldest purchase's cut-off. */
export type BatchWindow = Omit<BatchInFlight, 'size'>;

/**
 * What a batch came to: each purchase's outcome, in order, and whether the batch's time measured
 * the unit's service (one that met a fault did not).
 */
export interface ServedBatch<O> {
  outcomes: O[];
  measured: boolean;
}

/**
 * Turns a batch of one unit's purchases into their outcomes within its window. Throws
 * BatchRefusedError to have the whole batch answered OVERLOADED (nothing done); any other error
 * is every purchase's answer.
 */
export interface BatchServer<U, I, O> {
  serveBatch(unit: U, items: I[], window: BatchWindow): Promise<ServedBatch<O>>;
}

/** A purchase waiting for its batch, and how it is answered. */
interface WaitingPurchase<I, O> extends PurchaseDeadline {
  item: I;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

/**
 * The purchase batcher of one stock unit (a product, or one segment of it) in this instance, and
 * the sole owner of everything about it: its waiting purchases in deadline order, the batch in
 * flight, the service-time model those batches feed, the one timer that refuses purchases whose
 * cut-off came while they waited, and every resolve and reject. Its server only turns a batch into
 * outcomes.
 */
export class UnitBatcher<U, I, O> {
  private readonly model = new ServiceTimeModel();
  private waiting: WaitingPurchase<I, O>[] = [];
  private inFlight?: BatchInFlight;
  private draining = false;
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  /** When the model last learnt from a batch (deadlineNow's clock). */
  private observedAt = deadlineNow();

  constructor(
    private readonly unit: U,
    private readonly server: BatchServer<U, I, O>,
    private readonly deadlines: PurchaseDeadlines,
    private readonly metrics: BatchMetrics,
    private readonly limits: AdmissionLimits = ADMISSION_LIMITS,
  ) {}

  /** Neither waiting purchases nor a batch under way: the batcher may be dropped. */
  get idle(): boolean {
    return this.waiting.length === 0 && !this.draining;
  }

  /** The unit's measured service time, for readers such as the waiting room's pacing. */
  get serviceTime(): ServiceTimeEstimate {
    return this.model;
  }

  /** Whether a purchase due at `deadlineAt` can be answered in time if it joins now. */
  verdict(deadlineAt: number, now: number): Verdict {
    const msToCutoff = this.deadlines.cutoff(deadlineAt) - now;
    return admissionVerdict(this.load(), msToCutoff, this.model, this.deadlines.deadlineMs, this.limits, now);
  }

  /** A refusal for `reason` now, its Retry-After from the present backlog. */
  refusal(reason: RefusalReason, now: number): Refusal {
    return refusal(reason, completionMs(this.load(), this.waiting.length, this.model, this.limits.maxBatch, now));
  }

  /** Adds an admitted purchase (see verdict); settles with its outcome, or rejects with its refusal. */
  offer(item: I, { arrivedAt, deadlineAt }: PurchaseDeadline): Promise<O> {
    const answered = new Promise<O>((resolve, reject) =>
      this.insertByDeadline({ item, arrivedAt, deadlineAt, resolve, reject }),
    );
    this.arm();
    if (!this.draining) void this.drain();
    return answered;
  }

  /** Stops the timer: the batcher is being dropped. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private load(): UnitLoad {
    return { waiting: this.waiting.length, inFlight: this.inFlight };
  }

  /**
   * Every purchase gets the same time from its arrival, so deadline order is arrival order: one that
   * arrived earlier but got here later goes ahead of later ones.
   */
  private insertByDeadline(purchase: WaitingPurchase<I, O>): void {
    let at = this.waiting.length;
    while (at > 0 && this.waiting[at - 1].deadlineAt > purchase.deadlineAt) at--;
    this.waiting.splice(at, 0, purchase);
  }

  /** Serves batches until none is waiting; a batch that fails is answered and the loop goes on. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let batch = this.take(); batch.length; batch = this.take()) await this.serveBatch(batch);
    } finally {
      this.draining = false;
    }
  }

  /**
   * The next batch, oldest first, after refusing the purchases that cannot make their cut-off:
   * those with less time left than the batch needs. A doomed head would otherwise bound the whole
   * batch and sink the purchases behind it that still had time.
   */
  private take(now = deadlineNow()): WaitingPurchase<I, O>[] {
    const size = Math.min(this.waiting.length, this.limits.maxBatch);
    this.expireDue(this.probing(now) ? now : now + this.model.batchMs(size));
    const batch = this.waiting.splice(0, this.limits.maxBatch);
    this.arm();
    this.metrics.left(batch.length);
    for (const purchase of batch) this.metrics.waited((now - purchase.arrivedAt) / 1000);
    return batch;
  }

  /**
   * Whether a lone purchase runs even though the model expects it to miss its cut-off: when the
   * model has learnt nothing for a whole deadline. Refused on an estimate, no batch runs and the
   * estimate never changes: one slow batch (a stalled reply at the deadline's edge) would refuse the
   * unit's every later purchase. So once per deadline at most, a lone purchase is served under its
   * own cut-off as a probe, and its batch teaches the model again. While batches run (a slow
   * dependency, a crowd), the model is fresh and the estimate decides.
   */
  private probing(now: number): boolean {
    return this.waiting.length === 1 && now - this.observedAt >= this.deadlines.deadlineMs;
  }

  /** One batch, bounded by its oldest purchase's cut-off. */
  private async serveBatch(batch: WaitingPurchase<I, O>[]): Promise<void> {
    const window: BatchWindow = { startedAt: deadlineNow(), endsBy: this.deadlines.cutoff(batch[0].deadlineAt) };
    this.inFlight = { size: batch.length, ...window };
    try {
      const served = await this.server.serveBatch(
        this.unit,
        batch.map((purchase) => purchase.item),
        window,
      );
      for (let i = 0; i < batch.length; i++) batch[i].resolve(served.outcomes[i]);
      this.learn(batch.length, window.startedAt, served.measured);
    } catch (error) {
      // Not swallowed: a refused batch is answered OVERLOADED, any other error is each purchase's answer.
      if (error instanceof BatchRefusedError) this.refuse(batch, error.reason);
      else for (const purchase of batch) purchase.reject(error);
    } finally {
      this.inFlight = undefined;
    }
  }

  /**
   * Feeds the batch's time to the model. A batch that lost its answer measured a fault, unless it
   * overran the estimate: then it shows the service at least that slow, and leaving it out would
   * keep only the fast ones.
   */
  private learn(size: number, startedAt: number, measured: boolean): void {
    const now = deadlineNow();
    const elapsed = now - startedAt;
    if (!measured && elapsed <= this.model.batchMs(size)) return;
    this.model.observe(size, elapsed);
    this.observedAt = now;
  }

  /** Answers purchases OVERLOADED for `reason`; nothing was done for them. */
  private refuse(purchases: WaitingPurchase<I, O>[], reason: RefusalReason): void {
    if (!purchases.length) return;
    this.metrics.refused(reason, purchases.length);
    const error = new OverloadedException(reason, this.refusal(reason, deadlineNow()).retryAfterS);
    for (const purchase of purchases) purchase.reject(error);
  }

  /** Refuses the waiting purchases whose cut-off comes at or before `by`. */
  private expireDue(by: number): void {
    let due = 0;
    while (due < this.waiting.length && this.deadlines.cutoff(this.waiting[due].deadlineAt) <= by) due++;
    if (!due) return;
    const expired = this.waiting.splice(0, due);
    this.metrics.left(expired.length);
    this.refuse(expired, 'expired');
  }

  /** One timer, set for the head's cut-off, refuses purchases whose time ran out while they waited. */
  private arm(): void {
    const head = this.waiting[0];
    if (!head) return this.close();
    const at = this.deadlines.cutoff(head.deadlineAt);
    if (this.timer && this.timerAt <= at) return; // fires early at worst, then re-arms
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(this.expireOnTimer, Math.max(0, at - deadlineNow()));
    this.timer.unref();
  }

  private readonly expireOnTimer = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.expireDue(deadlineNow());
    this.arm();
  };
}
