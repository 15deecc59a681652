import { invariants } from '../../test/support/api-client';
import { createProduct, startInstances } from './app-stack';
import { LoadResult, mergeLoads, runLoad } from './http-load';
import { adminToken, userTokens } from './tokens';
import { peakRssMb } from './rss';

export interface BenchEnv {
  databaseUrl: string;
  redisUrl: string;
  seconds: number;
  connections: number;
  users: number;
}

export interface HotResult {
  instances: number;
  load: LoadResult;
  purchasesPerSecond: number;
  peakRssMb: Array<number | undefined>;
  batchMean?: number;
  violations: string[];
}

/** Loads compared with each other take turns in this many slices. */
export const ROUNDS = 4;

async function batchMean(url: string): Promise<number | undefined> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  const sum = Number(/^purchase_batch_size_sum (\S+)/m.exec(text)?.[1]);
  const count = Number(/^purchase_batch_size_count (\S+)/m.exec(text)?.[1]);
  return count ? sum / count : undefined;
}

/**
 * Many users buying one product with plenty of stock, through 1 or more instances. With
 * `between`, the load runs in ROUNDS slices and `between` runs after each one (the measurement it
 * is compared with takes turns with it, so machine drift hits both alike).
 */
export async function hot(env: BenchEnv, instances: number, between?: () => Promise<void>): Promise<HotResult> {
  const { apis } = await startInstances(instances, env.databaseUrl, env.redisUrl);
  try {
    const productId = await createProduct(apis[0].url, adminToken(), 100_000_000, 1_000_000);
    const rounds = between ? ROUNDS : 1;
    const spec = {
      urls: apis.map((a) => a.url),
      path: `/products/${productId}/purchase`,
      method: 'POST' as const,
      body: '{"quantity":1}',
      connections: env.connections,
      seconds: env.seconds / rounds,
      tokens: userTokens(env.users, `hot${instances}`),
    };
    const slices: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
      slices.push(await runLoad(spec));
      await between?.();
    }
    const load = mergeLoads(slices);
    const rss = apis.map((a) => peakRssMb(a.pid));
    const means = await Promise.all(apis.map((a) => batchMean(a.metricsUrl)));
    await Promise.all(apis.map((a) => a.stop()));
    const report = await invariants(env.databaseUrl, productId);
    return {
      instances,
      load,
      purchasesPerSecond: (load.byStatus['201'] ?? 0) / load.seconds,
      peakRssMb: rss,
      batchMean: means.reduce<number>((s, m) => s + (m ?? 0), 0) / means.length,
      violations: report.violations,
    };
  } finally {
    await Promise.all(apis.map((a) => a.stop()));
  }
}
