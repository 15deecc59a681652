import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiProcess } from '../../../scripts/infra/api-process';
import { TEST_JWT_SECRET } from '../../support/app-harness';
import { freePort } from '../../support/free-port';

/** Instance logs, beside the results in the ignored reports/chaos/. */
export const LOG_DIR = resolve(__dirname, '../../../reports/chaos/logs');

/** The environment every chaos instance shares; scenarios add their own on top. */
export function baseEnv(databaseUrl: string, redisUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    JWT_SECRET: TEST_JWT_SECRET,
    // The rate limit is not under test here (scenario 7 sets its own); keep it out of the way.
    RATE_LIMIT_PER_SECOND: '1000',
    QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000',
    PUBLIC_READS_PER_SECOND_PER_ADDRESS: '100000',
    // Every scenario runs with the expiry job active on every instance (scenarios 9 and 10 also
    // make orders fall due during the fault).
    ORDER_EXPIRY_INTERVAL_MS: '500',
  };
}

/** Starts `count` built API instances (dist/) one after another, so migrations do not race. */
export async function startApis(scenario: string, count: number, env: Record<string, string>): Promise<ApiProcess[]> {
  const apis: ApiProcess[] = [];
  for (let i = 0; i < count; i++) apis.push(await startApi(scenario, i, env));
  return apis;
}

export async function startApi(scenario: string, index: number, env: Record<string, string>): Promise<ApiProcess> {
  const api = new ApiProcess({ port: await freePort(), env, logFile: `${LOG_DIR}/${scenario}-api${index}.log` });
  await api.start(60_000);
  return api;
}

export async function stopAll(apis: (ApiProcess | undefined)[]): Promise<void> {
  await Promise.all(apis.map((api) => api?.stop('SIGKILL').catch(() => undefined)));
}

/** Resident set size of a process, in MB (Linux). */
export function rssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 102.4) / 10 : undefined;
  } catch {
    return undefined;
  }
}

/** Milliseconds until every instance's /health answers 200 (Postgres and Redis both reachable). */
export async function msUntilHealthy(urls: string[], timeoutMs = 30_000): Promise<number | undefined> {
  const t0 = Date.now();
  const healthy = async (url: string) => {
    try {
      return (await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) })).status === 200;
    } catch {
      return false;
    }
  };
  while (Date.now() - t0 < timeoutMs) {
    if ((await Promise.all(urls.map(healthy))).every(Boolean)) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}
