import { now } from './timing';

/** One pending reply's deadline, linked into the pending list while it waits. */
export interface ReplyDeadline {
  readonly at: number;
  readonly expire: () => void;
  prev?: ReplyDeadline;
  next?: ReplyDeadline;
  linked: boolean;
}

// Every lock operation waits for its reply under a deadline, and nearly every reply comes long
// before it. So the deadlines share one timer, armed for the earliest of them (not a timer per
// call: arming and clearing one costs more than an uncontended acquire's own JavaScript; nor a
// sweep every few ms, which woke an idle process a hundred times a second). Pending deadlines sit
// in an intrusive list: adding and removing one touches no hash table, which showed up in
// profiles of the uncontended path. The timer is unref'd: a pending reply does not keep a process
// alive any more than the driver's socket does.
export class ReplyDeadlines {
  private head?: ReplyDeadline;
  private timer?: NodeJS.Timeout;
  private timerAt = Number.POSITIVE_INFINITY;

  add(at: number, expire: () => void): ReplyDeadline {
    const deadline: ReplyDeadline = { at, expire, next: this.head, linked: true };
    if (this.head) this.head.prev = deadline;
    this.head = deadline;
    if (at < this.timerAt) this.arm(at);
    return deadline;
  }

  /** Idempotent; the timer stays armed (it finds nothing due and goes quiet). */
  remove(deadline: ReplyDeadline): void {
    if (!deadline.linked) return;
    deadline.linked = false;
    if (deadline.prev) deadline.prev.next = deadline.next;
    else this.head = deadline.next;
    if (deadline.next) deadline.next.prev = deadline.prev;
    deadline.prev = deadline.next = undefined;
  }

  /** Pending deadlines (for tests). */
  get size(): number {
    let n = 0;
    for (let d = this.head; d; d = d.next) n++;
    return n;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - now()));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const at = now();
    let earliest = Number.POSITIVE_INFINITY;
    for (let d = this.head; d; ) {
      const next = d.next;
      if (d.at <= at) {
        this.remove(d);
        d.expire();
      } else earliest = Math.min(earliest, d.at);
      d = next;
    }
    if (earliest < Number.POSITIVE_INFINITY) this.arm(earliest);
  }
}
