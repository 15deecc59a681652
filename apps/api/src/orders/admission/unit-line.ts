import { ServiceTimeModel } from './service-time';
import { UnitLoad } from './admission-policy';

/** A queued purchase: when it arrived, when it must be answered, and how to answer it. */
export interface Waiting {
  arrivedAt: number;
  deadline: number;
  reject(error: unknown): void;
}

/**
 * The queue of one stock unit, kept in order of arrival (hence of deadline: every purchase gets
 * the same deadline from its arrival), so the head is always the first to be served and the first
 * to expire. One timer, set for the head's deadline, answers purchases whose time ran out while
 * they waited; the unit's service-time model and in-flight batch live here too.
 */
export class UnitLine<T extends Waiting> {
  readonly model: ServiceTimeModel;
  inFlight?: UnitLoad['inFlight'];
  draining = false;
  private items: T[] = [];
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;

  constructor(
    model: ServiceTimeModel,
    private readonly answerMarginMs: () => number,
    private readonly onExpired: (expired: T[]) => void,
    private readonly now: () => number,
  ) {
    this.model = model;
  }

  get length(): number {
    return this.items.length;
  }

  load(): UnitLoad {
    return { queued: this.items.length, inFlight: this.inFlight };
  }

  /** Inserted by arrival: a purchase that arrived earlier but got here later goes ahead of later ones. */
  add(item: T): void {
    let at = this.items.length;
    while (at > 0 && this.items[at - 1].arrivedAt > item.arrivedAt) at--;
    this.items.splice(at, 0, item);
    this.arm();
  }

  /**
   * The next batch (oldest first), after answering the purchases that cannot make their deadline:
   * those with less time left than the batch needs (`needMs`). A doomed head would otherwise bound
   * the whole batch and sink the purchases behind it that still had time.
   */
  take(max: number, needMs = 0): T[] {
    this.expireDue(needMs);
    const batch = this.items.splice(0, max);
    this.arm();
    return batch;
  }

  /** Stops the timer: the line is being dropped. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private expireDue(needMs = 0): void {
    const now = this.now() + needMs;
    let due = 0;
    const margin = this.answerMarginMs();
    while (due < this.items.length && this.items[due].deadline - margin <= now) due++;
    if (due) this.onExpired(this.items.splice(0, due));
  }

  private arm(): void {
    const head = this.items[0];
    if (!head) return this.close();
    const at = head.deadline - this.answerMarginMs();
    if (this.timer && this.timerAt <= at) return; // fires early at worst, then re-arms
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.expireDue();
      this.arm();
    }, Math.max(0, at - this.now()));
    this.timer.unref();
  }
}
