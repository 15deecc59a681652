import Redis from 'ioredis';
import { median, percentile } from './stats';

export interface ServerSnapshot {
  totalCommands: number;
  /** calls per command name, including commands run from inside Lua scripts */
  calls: Record<string, number>;
  /** CPU seconds the server used (user + system, all its threads), from INFO cpu */
  cpuSeconds: number;
}

/** One INFO call; the delta between two snapshots therefore includes exactly one INFO. */
export async function snapshot(redis: Redis): Promise<ServerSnapshot> {
  const info = await redis.info('stats', 'commandstats', 'cpu');
  const total = /total_commands_processed:(\d+)/.exec(info);
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
  const cpu = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return { totalCommands: Number(total?.[1] ?? 0), calls, cpuSeconds: cpu('used_cpu_user') + cpu('used_cpu_sys') };
}

export function diff(before: ServerSnapshot, after: ServerSnapshot): ServerSnapshot {
  const calls: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.calls)) {
    const d = n - (before.calls[name] ?? 0);
    if (d > 0) calls[name] = d;
  }
  return { totalCommands: after.totalCommands - before.totalCommands, calls, cpuSeconds: after.cpuSeconds - before.cpuSeconds };
}

export interface RoundTrip {
  medianMs: number;
  p99Ms: number;
  samples: number;
}

/** Sequential PINGs on an idle connection: the one-round-trip term of the limit. */
export async function measureRoundTrip(redis: Redis, samples = 2000): Promise<RoundTrip> {
  for (let i = 0; i < 200; i++) await redis.ping();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await redis.ping();
    times.push(performance.now() - t0);
  }
  return { medianMs: median(times), p99Ms: percentile(times, 99), samples };
}

export async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
}
