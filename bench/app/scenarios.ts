import { JwtService } from '@nestjs/jwt';
import { invariants } from '../../test/support/api-client';
import { summarizeProfiles, ProfileSummary } from './cpu-profile';
import { BENCH_SECRET, createProduct, startInstances } from './app-stack';
import { LoadResult, LoadSpec, mergeLoads, runLoad } from './http-load';
import { peakRssMb } from './rss';
import { everyOrder } from './turn-orders';

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
  profile?: ProfileSummary;
}

export interface SoldOutResult {
  soldOut: LoadResult;
  bare: LoadResult;
  /** The cheapest POST with the same body the app answers: an unrouted path (404 through the filter). */
  barePost: LoadResult;
  ratio: number;
  violations: string[];
}

/** Loads compared with each other take turns in this many slices. */
export const ROUNDS = 4;

const jwt = new JwtService({ secret: BENCH_SECRET });
const sign = (sub: string, role: 'user' | 'admin') => jwt.sign({ sub, role }, { algorithm: 'HS256', expiresIn: '1h' });

function userTokens(count: number, tag: string): string[] {
  return Array.from({ length: count }, (_, i) => sign(`bench-${tag}-${i}`, 'user'));
}

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
export async function hot(env: BenchEnv, instances: number, profile = false, between?: () => Promise<void>): Promise<HotResult> {
  const { apis, profileDir } = await startInstances(instances, env.databaseUrl, env.redisUrl, profile);
  try {
    const productId = await createProduct(apis[0].url, sign('bench-admin', 'admin'), 100_000_000, 1_000_000);
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
    const means = await Promise.all(apis.map((a) => batchMean(a.url)));
    await Promise.all(apis.map((a) => a.stop()));
    const report = await invariants(env.databaseUrl, productId);
    return {
      instances,
      load,
      purchasesPerSecond: (load.byStatus['201'] ?? 0) / load.seconds,
      peakRssMb: rss,
      batchMean: means.reduce<number>((s, m) => s + (m ?? 0), 0) / means.length,
      violations: report.violations,
      profile: profileDir ? summarizeProfiles(profileDir) : undefined,
    };
  } finally {
    await Promise.all(apis.map((a) => a.stop()));
  }
}

/** Refusals of a sold-out product against the same app's bare liveness endpoint. */
export async function soldOut(env: BenchEnv): Promise<SoldOutResult> {
  const { apis } = await startInstances(1, env.databaseUrl, env.redisUrl);
  try {
    const productId = await createProduct(apis[0].url, sign('bench-admin', 'admin'), 0, 1);
    // Both runs make the generator do the same work per request (a rotating Authorization
    // header): it shares the 2 cores with the app, so a cheaper generator would flatter the ceiling.
    const loads: Array<Omit<LoadSpec, 'urls' | 'connections' | 'seconds' | 'tokens'>> = [
      { path: '/health/live', method: 'GET' },
      { path: `/products/${productId}/purchase`, method: 'POST', body: '{"quantity":1}' },
      { path: '/health/unrouted', method: 'POST', body: '{"quantity":1}' },
    ];
    // The three loads take turns in short slices, one round per order of the three, so that drift
    // on the shared machine (other jobs, CPU frequency) and what one slice leaves to the next hit
    // them alike: the ratio is what is judged.
    const orders = everyOrder(loads.length);
    const common = { urls: [apis[0].url], connections: env.connections, seconds: env.seconds / orders.length, tokens: userTokens(env.users, 'soldout') };
    const slices: LoadResult[][] = loads.map(() => []);
    for (const order of orders) {
      for (const which of order) slices[which].push(await runLoad({ ...common, ...loads[which] }));
    }
    const [bare, refused, barePost] = slices.map(mergeLoads);
    const report = await invariants(env.databaseUrl, productId);
    const violations = [...report.violations, ...(report.live !== 0 ? [`${report.live} units sold of a product with 0 stock`] : [])];
    return { soldOut: refused, bare, barePost, ratio: refused.perSecond / bare.perSecond, violations };
  } finally {
    await Promise.all(apis.map((a) => a.stop()));
  }
}
