import type { ReserveResult } from './backends/lock-backend';
import type { Lease } from './lease';
import { now } from './timing';

/** What a chain waiting in its process's line is told. */
export type Turn =
  /** The previous local holder passed the lock to us (under its token, when one is given). */
  | { kind: 'handedOver'; fence: number; validUntil: number; token?: string }
  /** Our turn to take the lock from Redis (queueing there behind other processes). */
  | { kind: 'contend' }
  /** Our turn, and our token already waits in the Redis queue (since `since`): await the handoff. */
  | { kind: 'queued'; since: number }
  | { kind: 'timeout' }
  | { kind: 'closed' };

/** Fences for the next holders of the line, who inherit `token`: reserved, or handed out with the lock. */
export interface Reservation {
  token: string;
  /** How many of the fences holders have used. */
  used: number;
  /** Set when the reply came: undefined until then, null if Redis did not answer. */
  result?: ReserveResult | null;
  settled: Promise<void>;
}

export type LocalWaiter = {
  readonly token: string;
  readonly ttlMs: number;
  readonly deadline: number;
  settle(turn: Turn): void;
};

/** A waiter with the timer that ends its wait at its deadline, and its caller's abort signal. */
type Waiting = LocalWaiter & { timer?: NodeJS.Timeout; signal?: AbortSignal; onAbort?: () => void };

/** The chains of one process that want one key: one `engaged` with Redis (holding or acquiring), the others waiting here in order. */
export class LocalLine {
  engaged = false;
  holder?: Lease;
  /** Local handoffs since the turn began, when it did, and how many it may make. */
  run = 0;
  since = 0;
  turn = 0;
  /** Fences for the next chains of this turn. */
  block?: Reservation;
  /** The chains waiting for their turn, oldest first (changed by the line's methods only). */
  readonly waiters: Waiting[] = [];

  get idle(): boolean {
    return !this.engaged && this.waiters.length === 0;
  }

  /** Joins the line; an abort of `signal` ends the wait like its deadline. */
  wait(token: string, ttlMs: number, deadline: number, signal?: AbortSignal): Promise<Turn> {
    return new Promise((resolve) => {
      const giveUp = () => {
        this.remove(waiter);
        resolve({ kind: 'timeout' });
      };
      const waiter: Waiting = { token, ttlMs, deadline, settle: resolve, signal, onAbort: giveUp };
      this.waiters.push(waiter);
      waiter.timer = setTimeout(giveUp, Math.max(0, Math.ceil(deadline - now())));
      signal?.addEventListener('abort', giveUp, { once: true });
    });
  }

  /** Takes the oldest waiter out of the line (its own timeout no longer applies). */
  shift(): LocalWaiter | undefined {
    const waiter = this.waiters.shift();
    if (waiter) this.remove(waiter);
    return waiter;
  }

  /** Records the local holder; `onGone` runs if its lease is lost before it is released. */
  hold(lease: Lease, onGone: () => void): void {
    this.holder = lease;
    lease.onLost = onGone;
  }

  letGo(): void {
    if (this.holder) this.holder.onLost = undefined;
    this.holder = undefined;
  }

  /** Every waiter is told `turn` and the line empties (shutdown). */
  drain(turn: Turn): void {
    for (let waiter = this.shift(); waiter; waiter = this.shift()) waiter.settle(turn);
  }

  private remove(waiter: Waiting): void {
    clearTimeout(waiter.timer);
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    const at = this.waiters.indexOf(waiter);
    if (at >= 0) this.waiters.splice(at, 1);
  }
}
