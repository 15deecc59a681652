import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { Refusal, refusal, Verdict } from './admission-rule';
import { BatchMetrics } from './batch.metrics';
import { OverloadedException } from './overloaded.error';
import { deadlineNow, PurchaseDeadline, PurchaseDeadlines } from './purchase-deadline';
import type { ServiceTimeEstimate } from './service-time-model';
import { BatchServer, UnitBatcher } from './unit-batcher';

/** Idle batchers (and the service times they measured) kept beyond this many are dropped. */
const MAX_BATCHERS = 10_000;

/**
 * This instance's purchase batchers, one per stock unit (keyed by the unit's lock key), and the
 * bound over all of them: a purchase joins its unit's batcher only when its estimated answer is
 * within its deadline and all batchers together hold fewer than PURCHASE_QUEUE_MAX (each waiting
 * purchase is a held request); otherwise it is refused at once with 503 OVERLOADED and nothing done.
 */
@Injectable()
export class PurchaseBatches {
  readonly metrics = new BatchMetrics();
  private readonly maxWaiting: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each unit's batcher has its own unit, item and outcome types
  private readonly batchers = new Map<string, UnitBatcher<any, any, any>>();

  constructor(
    private readonly deadlines: PurchaseDeadlines,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.maxWaiting = config.get('orders', { infer: true }).purchaseQueueMax;
  }

  /**
   * Adds the purchase to the batcher of `unit` (named `key`), whose batches `server` serves;
   * rejects with OverloadedException when it cannot be answered by its deadline.
   */
  submit<U, I, O>(key: string, unit: U, item: I, deadline: PurchaseDeadline, server: BatchServer<U, I, O>): Promise<O> {
    const batcher = this.batcherOf(key, unit, server);
    const now = deadlineNow();
    const verdict = this.full() ? batcher.refusal('queue_full', now) : batcher.verdict(deadline.deadlineAt, now);
    if (!verdict.admit) return Promise.reject(this.refused(verdict));
    this.metrics.joined();
    return batcher.offer(item, deadline);
  }

  /**
   * The refusal a purchase would get now, counted once, or undefined; makes no batcher. `keys` are
   * the units that could serve it (one, or each segment of a segmented product): refused only if
   * every one would refuse, with the soonest Retry-After among them.
   */
  precheck(keys: readonly string[], deadlineAt: number, now = deadlineNow()): OverloadedException | undefined {
    let soonest: Refusal | undefined;
    for (const key of keys) {
      const verdict = this.verdictNow(key, deadlineAt, now);
      if (verdict.admit) return undefined;
      if (!soonest || verdict.retryAfterS < soonest.retryAfterS) soonest = verdict;
    }
    return soonest && this.refused(soonest);
  }

  /** The service time the unit's batcher measured; undefined before this instance batched anything for it. */
  serviceTime(key: string): ServiceTimeEstimate | undefined {
    return this.batchers.get(key)?.serviceTime;
  }

  /** Counts a purchase answered after its deadline (an order committed late is still answered 201). */
  countIfLate(deadlineAt: number, now = deadlineNow()): void {
    if (now > deadlineAt) this.metrics.missedDeadline();
  }

  private verdictNow(key: string, deadlineAt: number, now: number): Verdict {
    const batcher = this.batchers.get(key);
    if (this.full()) return batcher ? batcher.refusal('queue_full', now) : refusal('queue_full', 0);
    if (batcher) return batcher.verdict(deadlineAt, now);
    return this.deadlines.cutoff(deadlineAt) > now ? { admit: true } : refusal('wait_estimate', 0);
  }

  private full(): boolean {
    return this.metrics.waiting >= this.maxWaiting;
  }

  private refused(verdict: Refusal): OverloadedException {
    this.metrics.refused(verdict.reason);
    return new OverloadedException(verdict.reason, verdict.retryAfterS);
  }

  private batcherOf<U, I, O>(key: string, unit: U, server: BatchServer<U, I, O>): UnitBatcher<U, I, O> {
    let batcher = this.batchers.get(key) as UnitBatcher<U, I, O> | undefined;
    if (!batcher) {
      this.dropIdleBatchers();
      batcher = new UnitBatcher(unit, server, this.deadlines, this.metrics);
      this.batchers.set(key, batcher);
    }
    return batcher;
  }

  /** Keeps at most MAX_BATCHERS batchers (and the service times they measured), dropping idle ones oldest first. */
  private dropIdleBatchers(): void {
    if (this.batchers.size < MAX_BATCHERS) return;
    for (const [key, batcher] of this.batchers) {
      if (this.batchers.size < MAX_BATCHERS) break;
      if (batcher.idle) {
        batcher.close();
        this.batchers.delete(key);
      }
    }
  }
}
