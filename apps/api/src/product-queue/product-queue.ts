import { AdmissionLimits, completionMs, decide, RefusalReason, retryAfterS, ServiceTimeModel, UnitLoad, Verdict } from './admission-policy';
import { BatchRefusedError } from './deadline-refusal';
import { OverloadedException } from './overloaded.error';

export const monotonicNow = (): number => performance.now();

/** The window a batch runs in: from its start until its oldest purchase must be answered. */
export interface BatchWindow {
  startedAt: number;
  endsBy: number;
}

/**
 * Serves one batch of a queue: the outcome of each of its purchases (in order), and whether the
 * batch's time measured the unit's service (a batch that met a fault did not). Throws
 * BatchRefusedError to have the whole batch answered OVERLOADED (nothing done); any other error
 * is every purchase's answer.
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

  constructor(
    private readonly serve: ServeBatch<I, O>,
    private readonly hooks: QueueHooks,
    private readonly limits: () => AdmissionLimits,
    private readonly deadlineMs: number,
  ) {}

  /** Neither queued purchases nor a batch under way: the queue may be dropped. */
  get idle(): boolean {
    return this.items.length === 0 && !this.draining;
  }

  snapshot(): QueueSnapshot {
    return { queued: this.items.length, inFlight: this.inFlight, batchMs: (size) => this.model.batchMs(size), measuredBatches: this.model.samples };
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
  offer(item: I, arrivedAt: number): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const queued: Queued<I, O> = { item, arrivedAt, deadline: arrivedAt + this.deadlineMs, resolve, reject };
      // By arrival: a purchase that arrived earlier but got here later goes ahead of later ones.
      let at = this.items.length;
      while (at > 0 && this.items[at - 1].arrivedAt > arrivedAt) at--;
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
    this.expireDue(this.model.batchMs(Math.min(this.items.length, max)));
    const batch = this.items.splice(0, max);
    this.arm();
    this.hooks.left(batch.length);
    for (const queued of batch) this.hooks.waited((now - queued.arrivedAt) / 1000);
    return batch;
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
      if (measured) this.model.observe(batch.length, monotonicNow() - startedAt);
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
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.expireDue();
      this.arm();
    }, Math.max(0, at - monotonicNow()));
    this.timer.unref();
  }
}
