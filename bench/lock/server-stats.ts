import Redis from 'ioredis';
import { median, percentile } from './stats';

export interface ServerSnapshot {
  totalCommands: number;
  /** calls per command name, including commands run from inside Lua scripts */
  calls: Record<string, number>;
  /** microseconds the server spent running each command, by name (a script's includes its inner calls) */
  usec: Record<string, number>;
  /** CPU seconds the server used (user + system, all its threads), from INFO cpu */
  cpuSeconds: number;
}

/** One INFO call; the delta between two snapshots therefore includes exactly one INFO. */
export async function snapshot(redis: Redis): Promise<ServerSnapshot> {
  const info = await redis.info('stats', 'commandstats', 'cpu');
  const total = /total_commands_processed:(\d+)/.exec(info);
  const calls: Record<string, number> = {};
  const usec: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    calls[m[1]] = Number(m[2]);
    usec[m[1]] = Number(m[3]);
  }
  const cpu = (field: string) => Number(new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return { totalCommands: Number(total?.[1] ?? 0), calls, usec, cpuSeconds: cpu('used_cpu_user') + cpu('used_cpu_sys') };
}

export function diff(before: ServerSnapshot, after: ServerSnapshot): ServerSnapshot {
  const calls: Record<string, number> = {};
  const usec: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.calls)) {
    const d = n - (before.calls[name] ?? 0);
    if (d <= 0) continue;
    calls[name] = d;
    usec[name] = (after.usec[name] ?? 0) - (before.usec[name] ?? 0);
  }
  return { totalCommands: after.totalCommands - before.totalCommands, calls, usec, cpuSeconds: after.cpuSeconds - before.cpuSeconds };
}

/**
 * The time Redis spent running the commands a client sent (`sent`: calls by name), from
 * INFO commandstats: a script's own time includes its inner calls, so only the names sent count.
 * Unlike INFO cpu, it leaves out the server's socket work, so it drifts little with the machine.
 */
export function commandTimeUs(server: ServerSnapshot, sent: Record<string, number>): number {
  return Object.keys(sent).reduce((sum, name) => sum + (server.usec[name.toLowerCase()] ?? 0), 0);
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
