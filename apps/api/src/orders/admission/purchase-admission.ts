import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';
import { AdmissionLimits, completionMs, decide, RefusalReason, retryAfterS, Verdict } from './admission-policy';
import { AdmissionMetrics } from './admission.metrics';
import { EventLoopLag } from './event-loop-lag';
import { OverloadedException } from './overloaded.error';
import { ServiceTimeModel } from './service-time';
import { UnitLine, Waiting } from './unit-line';
import { BatchRefusedError } from './deadline-refusal';

/**
 * Serves one batch of a unit's line: answers each of its purchases, and says whether the batch's
 * time measured the unit's service (a batch that met a fault did not). Throws BatchRefusedError to
 * have the whole batch answered OVERLOADED (nothing done); any other error rejects the batch.
 */
export type ServeBatch<T> = (batch: T[], window: { startedAt: number; endsBy: number }) => Promise<{ measured: boolean }>;

/**
 * Purchases served per lock hold. Under a spike a batch's time is mostly its round trips (lock,
 * statement, release), each waiting its turn on a busy event loop, not the statement's work per
 * purchase; so a hold serving more purchases sells more per second. At 100 connections batches
 * stay far below this (the HTTP side is the limit there).
 */
export const MAX_BATCH = 256;

export const LIMITS: AdmissionLimits = {
  maxBatch: MAX_BATCH,
  minSamples: 3,
  // Kept back from every deadline for the work after a batch (the answer, the sold-out flag), plus
  // the event loop's present lag (answerMarginMs()).
  answerMarginMs: 50,
  unitCapFloor: 256,
  unitCapCeiling: 4096,
};
/** Idle lines (and the service times they measured) kept beyond this many are dropped, oldest first. */
const MAX_LINES = 10_000;

export const monotonicNow = (): number => performance.now();

/**
 * The purchase queues (one line per stock unit) and their one owner: submit, drain, the batch in
 * flight, the service-time model and expiry all happen here; the batcher only serves a batch.
 * A purchase is queued only when its estimated answer time, from the queue ahead of it and the
 * unit's measured service time, is within its deadline; otherwise it is refused at once with 503
 * OVERLOADED and nothing done. Queued purchases whose deadline comes before their batch starts are
 * refused at their deadline.
 */
@Injectable()
export class PurchaseAdmission implements OnModuleDestroy {
  readonly deadlineMs: number;
  /** All queues of the instance together (PURCHASE_QUEUE_MAX): each queued purchase is a held request. */
  readonly globalCap: number;
  private readonly lines = new Map<string, UnitLine<Waiting>>();
  private queued = 0;
  readonly metrics = new AdmissionMetrics();
  private readonly lag = new EventLoopLag();

  constructor(@Inject(ConfigService) config: TypedConfigService) {
    const orders = config.get('orders', { infer: true });
    this.deadlineMs = orders.purchaseDeadlineMs;
    this.globalCap = orders.purchaseQueueMax;
    this.lag.start();
  }

  onModuleDestroy(): void {
    this.lag.stop();
  }

  /**
   * Time kept back from a deadline for answering: the fixed margin plus the event loop's present
   * lag (a timer or an answer runs that much late), at most a quarter of the deadline.
   */
  answerMarginMs(): number {
    return LIMITS.answerMarginMs + Math.min(this.lag.currentMs, this.deadlineMs / 4);
  }

  private limits(): AdmissionLimits {
    const margin = this.answerMarginMs();
    return margin === LIMITS.answerMarginMs ? LIMITS : { ...LIMITS, answerMarginMs: margin };
  }

  /** The unit's measured service time, or undefined before this instance served it (read only). */
  serviceModel(name: string): ServiceTimeModel | undefined {
    return this.lines.get(name)?.model;
  }

  /** Queues `item` on the unit's line (or throws OverloadedException) and sees that `serve` drains it. */
  submit<T extends Waiting>(name: string, item: T, serve: ServeBatch<T>, now = monotonicNow()): void {
    const line = this.admit(name, item, now);
    if (!line.draining) void this.drain(line, serve);
  }

  /** Serves the line until it is empty; a batch that throws is answered and the loop goes on. */
  private async drain<T extends Waiting>(line: UnitLine<T>, serve: ServeBatch<T>): Promise<void> {
    line.draining = true;
    try {
      for (let batch = this.take(line); batch.length; batch = this.take(line)) await this.serveBatch(line, batch, serve);
    } finally {
      line.draining = false;
      this.settle();
    }
  }

  /** One batch, bounded by its oldest purchase's deadline (the line is FIFO). */
  private async serveBatch<T extends Waiting>(line: UnitLine<T>, batch: T[], serve: ServeBatch<T>): Promise<void> {
    const startedAt = monotonicNow();
    const endsBy = batch[0].deadline - this.answerMarginMs();
    line.inFlight = { size: batch.length, startedAt, endsBy };
    try {
      const { measured } = await serve(batch, { startedAt, endsBy });
      if (measured) line.model.observe(batch.length, monotonicNow() - startedAt);
    } catch (error) {
      if (error instanceof BatchRefusedError) this.refuse(batch, error.reason, line);
      else for (const item of batch) item.reject(error);
    } finally {
      line.inFlight = undefined;
    }
  }

  /** Queues `item` on the unit's line, or throws OverloadedException. */
  admit<T extends Waiting>(name: string, item: T, now = monotonicNow()): UnitLine<T> {
    const line = this.lineOf(name) as unknown as UnitLine<T>;
    const verdict =
      this.queued >= this.globalCap
        ? { admit: false as const, reason: 'queue_full' as const, retryAfterS: this.retryAfter(line, now) }
        : decide(line.load(), item.deadline - now, line.model, this.deadlineMs, this.limits(), now);
    if (!verdict.admit) {
      this.metrics.countRefusals(verdict.reason);
      throw new OverloadedException(verdict.reason, verdict.retryAfterS);
    }
    line.add(item);
    this.setQueued(this.queued + 1);
    return line;
  }

  /**
   * The refusal admission would give a purchase now, counted once, or undefined: lets the HTTP
   * layer refuse before the rest of the pipeline spends anything on it. `names` are the units that
   * could serve it (one, or each segment of a segmented product); it is refused only if every one
   * of them would refuse, with the soonest Retry-After among them. Creates no line.
   */
  precheck(names: string | readonly string[], arrivedAt: number, now = monotonicNow()): OverloadedException | undefined {
    let refusal: Exclude<Verdict, { admit: true }> | undefined;
    for (const name of typeof names === 'string' ? [names] : names) {
      const verdict = this.verdictNow(name, arrivedAt, now);
      if (verdict.admit) return undefined;
      if (!refusal || verdict.retryAfterS < refusal.retryAfterS) refusal = verdict;
    }
    if (!refusal) return undefined;
    this.metrics.countRefusals(refusal.reason);
    return new OverloadedException(refusal.reason, refusal.retryAfterS);
  }

  private verdictNow(name: string, arrivedAt: number, now: number): Verdict {
    const line = this.lines.get(name);
    const remainingMs = arrivedAt + this.deadlineMs - now;
    if (this.queued >= this.globalCap) return { admit: false, reason: 'queue_full', retryAfterS: line ? this.retryAfter(line, now) : 1 };
    if (line) return decide(line.load(), remainingMs, line.model, this.deadlineMs, this.limits(), now);
    return remainingMs > this.answerMarginMs() ? { admit: true } : { admit: false, reason: 'wait_estimate', retryAfterS: 1 };
  }

  /** The unit's next batch, oldest first; its purchases' queue wait is recorded here. */
  take<T extends Waiting>(line: UnitLine<T>, now = monotonicNow()): T[] {
    // Those that cannot make their deadline leave through onExpired.
    const batch = line.take(LIMITS.maxBatch, line.model.batchMs(Math.min(line.length, LIMITS.maxBatch)));
    this.setQueued(this.queued - batch.length);
    for (const item of batch) this.metrics.wait.observe((now - item.arrivedAt) / 1000);
    return batch;
  }

  /** Answers purchases OVERLOADED for `reason`; nothing was done for them. */
  private refuse<T extends Waiting>(items: Waiting[], reason: RefusalReason, line: UnitLine<T>): void {
    if (!items.length) return;
    this.metrics.countRefusals(reason, items.length);
    const error = new OverloadedException(reason, this.retryAfter(line, monotonicNow()));
    for (const item of items) item.reject(error);
  }

  /** Counts a purchase answered after its deadline (an order committed late is still answered 201). */
  countIfLate(arrivedAt: number, now = monotonicNow()): void {
    if (now - arrivedAt > this.deadlineMs) this.metrics.deadlineMisses.inc();
  }

  /** Called when a line's drain loop found it empty: keeps its model unless there are too many lines. */
  private settle(): void {
    if (this.lines.size <= MAX_LINES) return;
    for (const [name, line] of this.lines) {
      if (this.lines.size <= MAX_LINES) break;
      if (line.length === 0 && !line.draining) {
        line.close();
        this.lines.delete(name);
      }
    }
  }

  private lineOf(name: string): UnitLine<Waiting> {
    let line = this.lines.get(name);
    if (!line) {
      line = new UnitLine<Waiting>(new ServiceTimeModel(), () => this.answerMarginMs(), (expired) => this.onExpired(line!, expired), monotonicNow);
      this.lines.set(name, line);
    }
    return line;
  }

  private onExpired(line: UnitLine<Waiting>, expired: Waiting[]): void {
    this.setQueued(this.queued - expired.length);
    this.refuse(expired, 'expired', line);
  }

  private retryAfter<T extends Waiting>(line: UnitLine<T>, now: number): number {
    return retryAfterS(completionMs(line.load(), line.length, line.model, LIMITS.maxBatch, now));
  }

  private setQueued(value: number): void {
    this.queued = value;
    this.metrics.depth.set(value);
  }
}
