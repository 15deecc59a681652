import Redis from 'ioredis';
import { BenchConfig } from './config';
import { RoundTrip } from './server-stats';

/** What every scenario needs: the private Redis, an uncounted admin connection, the run's RTT. */
export interface BenchContext {
  port: number;
  admin: Redis;
  rtt: RoundTrip;
  config: BenchConfig;
  /** unique per run, so keys from one cell never meet another's stragglers */
  nextKey(prefix: string): string;
}

/** 1 / (critical section + one round trip), in sections per second. */
export function contendedLimit(ctx: BenchContext): number {
  return 1000 / (ctx.config.criticalMs + ctx.rtt.medianMs);
}
