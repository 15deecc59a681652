import type { GeneratorSecond, GeneratorThreadFigures } from './generator-meter';

/**
 * When the generator, not the server, set the pace: in a second where one of its threads used at
 * least `cpuShare` of a core, or its event loop ran `lagP99Ms` late at the 99th percentile. A
 * thread that busy sends its next request late and reads answers late, so the rates and
 * latencies of that second are the generator's.
 */
export const SATURATION_RULE = { cpuShare: 0.9, lagP99Ms: 50 } as const;
export type SaturationRule = { cpuShare: number; lagP99Ms: number };

/** A sample this short (the end of a run) is too noisy to judge by CPU share; its lag still counts. */
const MIN_CPU_SAMPLE_MS = 500;

export interface GeneratorWorkerFigures {
  worker: number;
  cpuS: number;
  requests: number;
  cpuPerRequestMs: number;
  /** Its CPU over the load's wall time, as a share of one core. */
  cpuShare: number;
  lagP99Ms: number;
  lagMaxMs: number;
}

/** The load generator's own cost and whether it was the limit (docs/LOADTEST.md, "The generator's limit"). */
export interface GeneratorReport {
  workers: number;
  /** CPU of the whole generator process over the load: every thread, the runtime's own included. */
  cpuS: number;
  /** That CPU over the purchase requests sent. */
  cpuPerRequestMs: number;
  perWorker: GeneratorWorkerFigures[];
  rule: SaturationRule;
  /** Seconds of the run (as the per-second chart counts them) in which the generator was saturated. */
  saturatedSeconds: number[];
  /** The servers' CPU over the same span, from their /metrics (absent when unreadable). */
  server?: { cpuS: number; cpuPerRequestMs: number };
}

/** Whether one thread's second breaks the rule. */
export function isSaturated(sample: GeneratorSecond, rule: SaturationRule = SATURATION_RULE): boolean {
  return (sample.wallMs >= MIN_CPU_SAMPLE_MS && sample.cpuShare >= rule.cpuShare) || sample.lagP99Ms >= rule.lagP99Ms;
}

/** The seconds in which any thread was saturated, ascending. */
export function saturatedSeconds(threads: GeneratorSecond[][], rule: SaturationRule = SATURATION_RULE): number[] {
  const seconds = new Set<number>();
  for (const samples of threads)
    for (const sample of samples) if (isSaturated(sample, rule)) seconds.add(sample.second);
  return [...seconds].sort((a, b) => a - b);
}

/**
 * The report of a run's generator: `processCpuMs` over the whole process, each thread's figures
 * from its own meter, `elapsedMs` the load's wall time, `serverCpuS` from the servers' metrics.
 */
export function generatorReport(
  threads: GeneratorThreadFigures[],
  processCpuMs: number,
  elapsedMs: number,
  serverCpuS?: number,
): GeneratorReport {
  const requests = threads.reduce((sum, t) => sum + t.requests, 0);
  const perRequest = (cpuMs: number, n: number) => (n > 0 ? cpuMs / n : 0);
  return {
    workers: threads.length,
    cpuS: processCpuMs / 1000,
    cpuPerRequestMs: perRequest(processCpuMs, requests),
    perWorker: threads.map((t, worker) => ({
      worker,
      cpuS: t.cpuMs / 1000,
      requests: t.requests,
      cpuPerRequestMs: perRequest(t.cpuMs, t.requests),
      cpuShare: elapsedMs > 0 ? t.cpuMs / elapsedMs : 0,
      lagP99Ms: t.lagP99Ms,
      lagMaxMs: t.lagMaxMs,
    })),
    rule: { ...SATURATION_RULE },
    saturatedSeconds: saturatedSeconds(threads.map((t) => t.seconds)),
    ...(serverCpuS !== undefined
      ? { server: { cpuS: serverCpuS, cpuPerRequestMs: perRequest(serverCpuS * 1000, requests) } }
      : {}),
  };
}
