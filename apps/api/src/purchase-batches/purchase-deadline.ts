import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { InjectPurchaseDeadlineMs } from '../config/purchase-deadline';

/**
 * The one clock every purchase deadline is read on and compared against. performance.now(), not
 * Date.now(): it never jumps (an NTP step or a hand-set wall clock would move every deadline in
 * flight), and a purchase's arrival is read from Fastify's reply.elapsedTime, a monotonic clock too.
 */
export const deadlineNow = (): number => performance.now();

/** Kept back from every deadline for the work after a batch: the answer, the sold-out flag. */
const ANSWER_MARGIN_MS = 50;

/** A purchase's deadline, made once as it enters the pipeline; the purchase itself carries these fields. */
export interface PurchaseDeadline {
  arrivedAt: number;
  /** arrivedAt + PURCHASE_DEADLINE_MS, on deadlineNow's clock: when it must be answered */
  deadlineAt: number;
}

/**
 * PURCHASE_DEADLINE_MS and what follows from it: each purchase's deadline, and its cut-off, the
 * moment by which the work for it must end so that its answer still leaves in time. The cut-off
 * keeps back the event loop's present lag, the 99th percentile of its delay over the last second:
 * a timer set for a deadline fires that much late, and an answer reaches its socket that much late.
 */
@Injectable()
export class PurchaseDeadlines implements OnModuleDestroy {
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });
  private readonly lagTimer: NodeJS.Timeout;
  /** The event loop's present lag in ms (a field, not a getter: read on every purchase). */
  private lagMs = 0;

  constructor(@InjectPurchaseDeadlineMs() readonly deadlineMs: number) {
    this.loopDelay.enable();
    this.lagTimer = setInterval(() => {
      // The histogram counts the resolution itself as delay: a loop on time reads about 10 ms.
      this.lagMs = Math.max(0, this.loopDelay.percentile(99) / 1e6 - 10);
      this.loopDelay.reset();
    }, 1000).unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.lagTimer);
    this.loopDelay.disable();
  }

  /** When a purchase that arrived at `arrivedAt` must be answered. */
  deadlineOf(arrivedAt: number): number {
    return arrivedAt + this.deadlineMs;
  }

  /**
   * The cut-off of a purchase due at `deadlineAt`: its deadline less the answer margin and the
   * event loop's lag, the lag counted up to a quarter of the deadline. Admission, expiry and the
   * batch's window all compare against this.
   */
  cutoff(deadlineAt: number): number {
    return deadlineAt - ANSWER_MARGIN_MS - Math.min(this.lagMs, this.deadlineMs / 4);
  }
}
