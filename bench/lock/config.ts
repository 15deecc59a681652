/** Knobs for one bench run; env overrides exist so a quick smoke run is possible. */
const num = (name: string, fallback: number) => {
  const v = process.env[name];
  return v === undefined || v === '' ? fallback : Number(v);
};

export const benchConfig = {
  /** window per contended cell (b, c) */
  cellMs: num('BENCH_CELL_MS', 5000),
  /** uncontended (a): rounds, each giving every contender one slice, interleaved against drift */
  uncontendedRounds: num('BENCH_A_ROUNDS', 3),
  uncontendedSliceMs: num('BENCH_A_SLICE_MS', 1000),
  /** (a)'s first contenders (fenced floor, ours, redis-semaphore, the floor again) run back to back, rotated per round */
  uncontendedGroup: 4,
  /** (a)'s untimed warm-up: one slice, and at least this many cycles (V8 optimises a library's code after ~2,000-3,000) */
  uncontendedWarmupCycles: num('BENCH_A_WARMUP_CYCLES', 4000),
  /** window per setting in the tuning sweep (scenario b) */
  sweepMs: num('BENCH_SWEEP_MS', 1500),
  workers: 50,
  processes: 4,
  criticalMs: 1,
  ttlMs: 5000,
};

export type BenchConfig = typeof benchConfig;
