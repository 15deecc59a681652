import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { EventLoopLag } from './event-loop-lag';
import { OverloadedException } from './overloaded.error';
import {
  AdmissionLimits,
  monotonicNow,
  ProductQueue,
  PurchaseDeadline,
  QueueHooks,
  QueueSnapshot,
  ServeBatch,
  Verdict,
} from './product-queue';
import { QueueMetrics } from './queue.metrics';

/**
 * Purchases served per lock hold. Under a spike a batch's time is mostly its round trips (lock,
 * statement, release), each waiting its turn on a busy event loop, not the statement's work per
 * purchase; so a hold serving more purchases sells more per second.
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
/** Idle queues (and the service times they measured) kept beyond this many are dropped. */
const MAX_QUEUES = 10_000;

/**
 * This instance's purchase queues, one per stock unit, and the bounds over all of them: a
 * purchase is queued only when its estimated answer time is within its deadline and all queues
 * together hold fewer than PURCHASE_QUEUE_MAX (each queued purchase is a held request);
 * otherwise it is refused at once with 503 OVERLOADED and nothing done.
 */
@Injectable()
export class ProductQueues implements OnModuleDestroy {
  readonly deadlineMs: number;
  private readonly globalCap: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each unit's queue has its own item and outcome types
  private readonly queues = new Map<string, ProductQueue<any, any>>();
  private queued = 0;
  readonly metrics = new QueueMetrics();
  private readonly lag = new EventLoopLag();
  private readonly hooks: QueueHooks = {
    left: (count) => this.setQueued(this.queued - count),
    refused: (reason, count) => this.metrics.countRefusals(reason, count),
    waited: (seconds) => this.metrics.wait.observe(seconds),
    answerMarginMs: () => this.answerMarginMs(),
  };

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
   * Queues the purchase on the unit's queue, served by `serve`; rejects with OverloadedException
   * when it cannot be answered by its deadline.
   */
  submit<I, O>(unit: string, item: I, deadline: PurchaseDeadline, serve: ServeBatch<I, O>): Promise<O> {
    const queue = this.queueOf(unit, serve);
    const now = monotonicNow();
    const verdict =
      this.queued >= this.globalCap ? this.full(queue, now) : queue.verdict(deadline.deadlineAt - now, now);
    if (!verdict.admit) return Promise.reject(this.refusal(verdict));
    this.setQueued(this.queued + 1);
    return queue.offer(item, deadline);
  }

  /**
   * The refusal a purchase would get now, counted once, or undefined; creates no queue. `units` are
   * those that could serve it (one, or each segment of a segmented product): refused only if every
   * one would refuse, with the soonest Retry-After among them.
   */
  precheck(units: readonly string[], deadlineAt: number, now = monotonicNow()): OverloadedException | undefined {
    let refusal: Exclude<Verdict, { admit: true }> | undefined;
    for (const unit of units) {
      const verdict = this.verdictNow(unit, deadlineAt, now);
      if (verdict.admit) return undefined;
      if (!refusal || verdict.retryAfterS < refusal.retryAfterS) refusal = verdict;
    }
    return refusal && this.refusal(refusal);
  }

  /** A read-only view of the unit's queue; undefined before this instance queued anything for it. */
  snapshot(unit: string): QueueSnapshot | undefined {
    return this.queues.get(unit)?.snapshot();
  }

  /** Counts a purchase answered after its deadline (an order committed late is still answered 201). */
  countIfLate(deadlineAt: number, now = monotonicNow()): void {
    if (now > deadlineAt) this.metrics.deadlineMisses.inc();
  }

  /**
   * Time kept back from a deadline for answering: the fixed margin plus the event loop's present
   * lag (a timer or an answer runs that much late), at most a quarter of the deadline.
   */
  answerMarginMs(): number {
    return LIMITS.answerMarginMs + Math.min(this.lag.currentMs, this.deadlineMs / 4);
  }

  private limits = (): AdmissionLimits => {
    const margin = this.answerMarginMs();
    return margin === LIMITS.answerMarginMs ? LIMITS : { ...LIMITS, answerMarginMs: margin };
  };

  private verdictNow(unit: string, deadlineAt: number, now: number): Verdict {
    const queue = this.queues.get(unit);
    if (this.queued >= this.globalCap)
      return queue ? this.full(queue, now) : { admit: false, reason: 'queue_full', retryAfterS: 1 };
    const remainingMs = deadlineAt - now;
    if (queue) return queue.verdict(remainingMs, now);
    return remainingMs > this.answerMarginMs()
      ? { admit: true }
      : { admit: false, reason: 'wait_estimate', retryAfterS: 1 };
  }

  private full(queue: { retryAfterS(now: number): number }, now: number): Verdict {
    return { admit: false, reason: 'queue_full', retryAfterS: queue.retryAfterS(now) };
  }

  private refusal(verdict: Exclude<Verdict, { admit: true }>): OverloadedException {
    this.metrics.countRefusals(verdict.reason);
    return new OverloadedException(verdict.reason, verdict.retryAfterS);
  }

  private queueOf<I, O>(unit: string, serve: ServeBatch<I, O>): ProductQueue<I, O> {
    let queue = this.queues.get(unit) as ProductQueue<I, O> | undefined;
    if (!queue) {
      this.dropIdleQueues();
      queue = new ProductQueue<I, O>(serve, this.hooks, this.limits, this.deadlineMs);
      this.queues.set(unit, queue);
    }
    return queue;
  }

  /** Keeps at most MAX_QUEUES queues (and the service times they measured), dropping idle ones oldest first. */
  private dropIdleQueues(): void {
    if (this.queues.size < MAX_QUEUES) return;
    for (const [unit, queue] of this.queues) {
      if (this.queues.size < MAX_QUEUES) break;
      if (queue.idle) {
        queue.close();
        this.queues.delete(unit);
      }
    }
  }

  private setQueued(value: number): void {
    this.queued = value;
    this.metrics.depth.set(value);
  }
}
