import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * How late this process's event loop runs callbacks now: the 99th percentile of its delay over
 * the last second. A timer set for a deadline fires that much late, and an answer written after
 * a batch reaches the socket that much late, so admission keeps that much more time back.
 */
export class EventLoopLag {
  private readonly histogram: ReturnType<typeof monitorEventLoopDelay> = monitorEventLoopDelay({ resolution: 10 });
  private timer?: NodeJS.Timeout;
  /** The present lag in ms (a field, not a getter: read on every purchase). */
  currentMs = 0;

  start(): void {
    if (this.timer) return;
    this.histogram.enable();
    this.timer = setInterval(() => {
      // The histogram counts the resolution itself as delay: a loop on time reads about 10 ms.
      this.currentMs = Math.max(0, this.histogram.percentile(99) / 1e6 - 10);
      this.histogram.reset();
    }, 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.histogram.disable();
  }
}
