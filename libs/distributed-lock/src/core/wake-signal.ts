import type { Watcher, Wakeup } from './wakeup-hub';

/** A waiter's inbox: wakeups that arrive while it is busy are kept for its next `next()`. */
export class WakeSignal implements Watcher {
  private readonly pending: Wakeup[] = [];
  private deliver?: (wakeup: Wakeup) => void;

  constructor(readonly token: string) {}

  wake(wakeup: Wakeup): void {
    if (this.deliver) this.deliver(wakeup);
    else this.pending.push(wakeup);
  }

  /** The next wakeup, or `{ kind: 'timer' }` after `timeoutMs`; a handoff goes before others. */
  next(timeoutMs: number): Promise<Wakeup> {
    const handoff = this.pending.findIndex((w) => w.kind === 'handedOver');
    if (this.pending.length > 0) {
      const wakeup = this.pending.splice(handoff >= 0 ? handoff : 0, 1)[0];
      this.pending.length = 0;
      return Promise.resolve(wakeup);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.deliver = undefined;
        resolve({ kind: 'timer' });
      }, timeoutMs);
      this.deliver = (wakeup) => {
        clearTimeout(timer);
        this.deliver = undefined;
        resolve(wakeup);
      };
    });
  }
}
