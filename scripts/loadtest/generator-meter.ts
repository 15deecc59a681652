import { ELDHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** One second of one generator thread: its CPU as a share of a core, and how late its event loop ran. */
export interface GeneratorSecond {
  /** Seconds since the run's start, as the per-second chart counts them. */
  second: number;
  /** How long the sample ran (the last one of a run is usually cut short). */
  wallMs: number;
  cpuShare: number;
  lagP99Ms: number;
}

/** What one generator thread did over the load: its CPU, its requests, and its event loop's lag. */
export interface GeneratorThreadFigures {
  cpuMs: number;
  requests: number;
  lagP99Ms: number;
  lagMaxMs: number;
  seconds: GeneratorSecond[];
}

/** Event-loop delay is sampled this often (ms): finer than the lag worth naming. */
const LAG_RESOLUTION_MS = 10;
const NS_PER_MS = 1e6;

/**
 * Meters the thread it runs on while the load runs: its own CPU clock (process.threadCpuUsage, so
 * workers of one process are told apart) and its event-loop delay (perf_hooks), over the whole load
 * and second by second from the run's start.
 */
export class GeneratorMeter {
  private readonly whole: ELDHistogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  private readonly perSecond: ELDHistogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  private readonly seconds: GeneratorSecond[] = [];
  private cpuAtStart = process.threadCpuUsage();
  private cpuAtTick = this.cpuAtStart;
  private tickAt = Date.now();
  private ticker?: NodeJS.Timeout;

  constructor(private readonly startedAt: number) {}

  start(): void {
    this.cpuAtStart = process.threadCpuUsage();
    this.cpuAtTick = this.cpuAtStart;
    this.tickAt = Date.now();
    this.whole.enable();
    this.perSecond.enable();
    this.ticker = setInterval(() => this.tick(), 1000);
  }

  /** Stops metering; `requests`: the purchase requests this thread sent. */
  stop(requests: number): GeneratorThreadFigures {
    clearInterval(this.ticker);
    this.tick();
    this.whole.disable();
    this.perSecond.disable();
    const used = process.threadCpuUsage(this.cpuAtStart);
    return {
      cpuMs: (used.user + used.system) / 1000,
      requests,
      lagP99Ms: lagMs(this.whole, 99),
      lagMaxMs: this.whole.count ? this.whole.max / NS_PER_MS : 0,
      seconds: this.seconds,
    };
  }

  private tick(): void {
    const now = Date.now();
    const wallMs = now - this.tickAt;
    if (wallMs <= 0) return;
    const used = process.threadCpuUsage(this.cpuAtTick);
    this.seconds.push({
      second: Math.max(0, Math.floor((this.tickAt - this.startedAt) / 1000)),
      wallMs,
      cpuShare: (used.user + used.system) / 1000 / wallMs,
      lagP99Ms: lagMs(this.perSecond, 99),
    });
    this.perSecond.reset();
    this.cpuAtTick = process.threadCpuUsage();
    this.tickAt = now;
  }
}

/** A percentile of an event-loop delay histogram in ms, less the sampling interval it always includes. */
function lagMs(histogram: ELDHistogram, p: number): number {
  if (!histogram.count) return 0;
  return Math.max(0, histogram.percentile(p) / NS_PER_MS - LAG_RESOLUTION_MS);
}
