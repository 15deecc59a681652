import Redis from 'ioredis';
import { invariants, withPg } from '../../test/support/api-client';
import { createProduct, startInstances } from './app-stack';
import { ReferenceServer, startBareFastify, startBareNest } from './reference-servers';
import { ProfileSummary, ProfileWindow, summarizeProfiles } from './cpu-profile';
import { AcceptQueueProbe, AcceptQueueSummary } from './accept-queue';
import { Balancer, BalancerOptions, startBalancer } from './balancer';
import { CpuMeter } from './proc-cpu';
import { peakRssMb } from './rss';
import { adminToken, userTokens } from './tokens';
import { runWrk, WrkResult, WrkSpec } from './wrk';

export interface CpuBenchEnv {
  databaseUrl: string;
  redisUrl: string;
  redisPid: number;
  seconds: number;
  connections: number;
  users: number;
  spikeConnections: number;
  spikeSeconds: number;
  /** Run each cell's API under `node --cpu-prof` and summarise where its time went. */
  profile: boolean;
  /** The API bundle the app cells start; this checkout's `dist/apps/api/main.js` when omitted. */
  apiEntry?: string;
  /** The node binary that runs the API; the bench's own when omitted. */
  apiNode?: string;
  /** V8 flags of the API in place of `npm start`'s (bench/app/memory-series.ts compares sets). */
  apiFlags?: string[];
}

export interface CpuCell {
  name: string;
  load: WrkResult;
  /** CPU seconds of the server under test (the API, or the bare Fastify process). */
  serverCpuS: number;
  /** The share of the server's CPU that the kernel spent on its behalf (system time in /proc). */
  serverSystemShare: number;
  redisCpuS: number;
  postgresCpuS: number;
  /** Answers per CPU-second of the server under test. */
  perCpuSecond: number;
  peakRssMb?: number;
  /** Redis time per command (INFO commandstats), per answer of the cell. */
  redisCommands: Array<{ command: string; callsPerAnswer: number; usecPerCall: number }>;
  violations: string[];
  profile?: ProfileSummary;
  /** Spike cells: the accept queue of the server's port during the load. */
  acceptQueue?: AcceptQueueSummary;
  /** Spike cells of the app: purchases it answered later than its deadline, from their arrival (its own counter). */
  deadlineMisses?: number;
  /** Cells through the balancer: its CPU seconds (HAProxy is a process of its own). */
  balancerCpuS?: number;
}

/** What a cell watches beside the server's CPU. */
interface Watch {
  /** Sample this port's accept queue. */
  probePort?: number;
  /** A balancer in front, whose CPU is counted apart. */
  balancerPid?: number;
  /** What drives the load; wrk when omitted. */
  client?: LoadClient;
}

/** A load generator: wrk (C, out of process), or a Node client such as nodeClientLoad. */
export type LoadClient = (spec: WrkSpec) => Promise<WrkResult>;

export const WARM_UP_S = 2;

/** The bench database's backends (the API's pool), for their CPU. */
const postgresBackends = (databaseUrl: string) => (): Promise<number[]> =>
  withPg(databaseUrl, async (pg) => (await pg.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')).rows.map((r) => Number(r.pid)));

async function redisCommandStats(redis: Redis): Promise<Map<string, { calls: number; usec: number }>> {
  const text = (await redis.info('commandstats')) as string;
  const stats = new Map<string, { calls: number; usec: number }>();
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) stats.set(match[1], { calls: Number(match[2]), usec: Number(match[3]) });
  return stats;
}

/**
 * Measures one load against one server: its CPU, Redis's and the bench database's backends',
 * all read from /proc around the run, so the load generator's share of the cores stays out.
 */
export async function measure(env: CpuBenchEnv, name: string, serverPid: number, spec: WrkSpec, answered: (load: WrkResult) => number, watch: Watch = {}): Promise<Omit<CpuCell, 'violations'>> {
  const server = new CpuMeter(() => [serverPid]);
  const balancer = watch.balancerPid ? new CpuMeter(() => [watch.balancerPid!]) : undefined;
  const acceptQueue = watch.probePort ? new AcceptQueueProbe(watch.probePort) : undefined;
  const redisCpu = new CpuMeter(() => [env.redisPid]);
  const postgres = new CpuMeter(postgresBackends(env.databaseUrl));
  const redis = new Redis(env.redisUrl);
  try {
    await redis.config('RESETSTAT');
    await Promise.all([server.start(), redisCpu.start(), postgres.start(), balancer?.start()]);
    acceptQueue?.start();
    const load = await (watch.client ?? runWrk)(spec);
    const [serverCpuS, redisCpuS, postgresCpuS, balancerCpuS] = await Promise.all([server.stop(), redisCpu.stop(), postgres.stop(), balancer?.stop()]);
    const acceptQueueSummary = acceptQueue?.stop();
    const answers = Math.max(1, answered(load));
    const redisCommands = [...(await redisCommandStats(redis))]
      .filter(([command]) => !command.startsWith('config') && !command.startsWith('info'))
      .map(([command, s]) => ({ command, callsPerAnswer: s.calls / answers, usecPerCall: s.usec / Math.max(1, s.calls) }))
      .sort((a, b) => b.callsPerAnswer * b.usecPerCall - a.callsPerAnswer * a.usecPerCall);
    return { name, load, serverCpuS, redisCpuS, postgresCpuS, serverSystemShare: server.systemShare(), perCpuSecond: serverCpuS > 0 ? answered(load) / serverCpuS : 0, redisCommands, acceptQueue: acceptQueueSummary, balancerCpuS };
  } finally {
    redis.disconnect();
  }
}

/**
 * A reference server (bare Fastify, or bare Nest) in its own process under one load, warmed at the
 * usual connections first. A spike also watches its accept queue and its peak RSS.
 */
async function referenceCell(
  env: CpuBenchEnv,
  name: string,
  server: { start: () => Promise<ReferenceServer>; path: string },
  load: { connections: number; seconds: number },
  spike: boolean,
): Promise<CpuCell> {
  const bare = await server.start();
  try {
    const spec: WrkSpec = { url: `${bare.url}${server.path}`, method: 'GET', ...load };
    await runWrk({ ...spec, connections: env.connections, seconds: WARM_UP_S });
    const cell = await measure(env, name, bare.pid, spec, (l) => l.ok2xx, { probePort: spike ? Number(new URL(bare.url).port) : undefined });
    return { ...cell, peakRssMb: spike ? peakRssMb(bare.pid) : undefined, violations: [] };
  } finally {
    await bare.stop();
  }
}

const BARE_FASTIFY = { start: startBareFastify, path: '/live' };

/** (a) `fastify().get('/live')` in its own process: the HTTP floor in Node here. */
export const floorCell = (env: CpuBenchEnv) =>
  referenceCell(env, 'bare Fastify `GET /live` (own process)', BARE_FASTIFY, { connections: env.connections, seconds: env.seconds }, false);

/** NestJS's own cost: one controller's `GET /health/live` on Nest's Fastify adapter, nothing of the app. */
export const nestFloorCell = (env: CpuBenchEnv) =>
  referenceCell(env, 'bare NestJS on Fastify, one controller `GET /health/live` (own process)', { start: startBareNest, path: '/health/live' }, { connections: env.connections, seconds: env.seconds }, false);

/** The floor under the spike: the same crowd of connections on bare Fastify (its latency, accept queue and memory). */
export const floorSpikeCell = (env: CpuBenchEnv) =>
  referenceCell(env, `bare Fastify \`GET /live\`, ${env.spikeConnections} connections`, BARE_FASTIFY, { connections: env.spikeConnections, seconds: env.spikeSeconds }, true);

/** The app's own count of purchases answered past their deadline, from its /metrics. */
async function deadlineMisses(url: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const match = /^purchase_deadline_misses_total (\d+)/m.exec(text);
    return match ? Number(match[1]) : 0;
  } catch {
    return undefined;
  }
}

export type CellPlan = {
  name: string;
  /** Stock and per-user limit of the cell's product (and its waiting room); none for liveness. */
  product?: { stock: number; perUserLimit: number; waitingRoom?: Record<string, number> };
  /** Runs before the warm-up, on the fresh instance: the request paths the load walks (e.g. tickets). */
  paths?: (url: string, productId: string | undefined) => Promise<string[]>;
  spec: (url: string, productId: string | undefined) => Omit<WrkSpec, 'connections' | 'seconds' | 'tokens'>;
  connections?: number;
  seconds?: number;
  users: boolean;
  /** What counts as an answer of this cell (its goodput). */
  answered: (load: WrkResult) => number;
  /** A spike: watch the accept queue and read the app's deadline misses after the load. */
  spike?: boolean;
  /** Drive the load through deploy/haproxy/haproxy.cfg in front of the instance. */
  viaBalancer?: BalancerOptions;
  /** The measured load's generator; wrk when omitted (the warm-up is always wrk's). */
  client?: LoadClient;
};

/** Runs a plan on a fresh API process (its own peak RSS and profile), checks invariants after. */
export async function appCell(env: CpuBenchEnv, plan: CellPlan): Promise<CpuCell> {
  const spawnedAt = Date.now();
  const { apis, profileDir } = await startInstances(1, env.databaseUrl, env.redisUrl, env.profile, env.apiEntry, env.apiNode, env.apiFlags);
  const api = apis[0];
  let window: ProfileWindow | undefined;
  let cell: Omit<CpuCell, 'violations'>;
  let productId: string | undefined;
  let balancer: Balancer | undefined;
  try {
    const { product } = plan;
    productId = product ? await createProduct(api.url, adminToken(), product.stock, product.perUserLimit, product.waitingRoom ? { waitingRoom: product.waitingRoom } : {}) : undefined;
    balancer = plan.viaBalancer ? await startBalancer(api.options.port, plan.viaBalancer) : undefined;
    const paths = plan.paths ? await plan.paths(api.url, productId) : undefined;
    const base = { ...plan.spec(balancer?.url ?? api.url, productId), connections: plan.connections ?? env.connections, paths };
    const tag = plan.name.replace(/\W+/g, '').slice(0, 12);
    // Through a balancer, the warm-up fills its pool of connections to the instance, as the traffic
    // before a sale does: the instance accepts new connections one per event-loop turn.
    const warmConnections = plan.viaBalancer?.maxConn ?? Math.min(base.connections, env.connections);
    await runWrk({ ...base, seconds: WARM_UP_S, connections: warmConnections, tokens: plan.users ? userTokens(5000, `warm${tag}`) : undefined });
    const tokens = plan.users ? userTokens(env.users, tag) : undefined;
    const measuredFrom = Date.now() - spawnedAt;
    cell = await measure(env, plan.name, api.pid!, { ...base, seconds: plan.seconds ?? env.seconds, tokens }, plan.answered, {
      probePort: plan.spike ? api.options.port : undefined,
      balancerPid: balancer?.pid,
      client: plan.client,
    });
    window = { fromMs: measuredFrom, toMs: Date.now() - spawnedAt };
    cell.peakRssMb = peakRssMb(api.pid);
    if (plan.spike) cell.deadlineMisses = await deadlineMisses(api.metricsUrl);
  } finally {
    await balancer?.stop();
    await api.stop();
  }
  const report = productId ? await invariants(env.databaseUrl, productId) : undefined;
  const violations = report?.violations ?? [];
  if (report && plan.product?.stock === 0 && report.live !== 0) violations.push(`${report.live} units sold of a product with 0 stock`);
  return { ...cell, violations, profile: profileDir ? summarizeProfiles(profileDir, window) : undefined };
}

/** HAProxy's settings in the balanced spike: requests in flight to the instance, and the longest wait for one. */
export const BALANCER: BalancerOptions = { maxConn: 256, queueMs: 1500 };

const purchase = (url: string, productId: string | undefined) => ({ url: `${url}/products/${productId}/purchase`, method: 'POST' as const, body: '{"quantity":1}' });
const created = (load: WrkResult) => load.byStatus['201'] ?? 0;

/** (b) The app's liveness route. */
export const liveCell = (env: CpuBenchEnv) =>
  appCell(env, { name: 'the app\'s `GET /health/live`', spec: (url) => ({ url: `${url}/health/live`, method: 'GET' }), users: false, answered: (l) => l.ok2xx });

/** The storefront's product read (public, cached), of one product. */
export const productReadCell = (env: CpuBenchEnv) =>
  appCell(env, {
    name: 'product read `GET /products/:id`',
    product: { stock: 1_000, perUserLimit: 1 },
    spec: (url, productId) => ({ url: `${url}/products/${productId}`, method: 'GET' }),
    users: false,
    answered: (l) => l.ok2xx,
  });

/** (c) Purchases of a sold-out product, every one from another user: all 409. */
export const soldOutCell = (env: CpuBenchEnv) =>
  appCell(env, { name: `sold-out refusal (409), ${env.users} distinct users`, product: { stock: 0, perUserLimit: 1 }, spec: purchase, users: true, answered: (l) => l.byStatus['409'] ?? 0 });

/** (d) Purchases of one product with plenty of stock, every one from another user: all 201. */
export const hotCell = (env: CpuBenchEnv) =>
  appCell(env, { name: `hot purchase (201), ${env.users} distinct users`, product: { stock: 100_000_000, perUserLimit: 1_000_000 }, spec: purchase, users: true, answered: created });

/** Thousands of connections on one hot product, from distinct users; goodput is the 201s. */
const spikePlan = (env: CpuBenchEnv, name: string, viaBalancer?: BalancerOptions): CellPlan => ({
  name: `${name}: ${env.spikeConnections} connections on one hot product`,
  product: { stock: 100_000_000, perUserLimit: 1_000_000 },
  spec: purchase,
  connections: env.spikeConnections,
  seconds: env.spikeSeconds,
  users: true,
  answered: created,
  spike: true,
  viaBalancer,
});

/** (e) The spike, straight at the instance. */
export const spikeCell = (env: CpuBenchEnv) => appCell(env, spikePlan(env, 'spike'));

/**
 * The same spike through deploy/haproxy/haproxy.cfg, as a sale is deployed: the crowd connects to
 * HAProxy, which keeps a bounded pool of connections to the instance and queues the rest for a
 * bounded time.
 */
export const balancedSpikeCell = (env: CpuBenchEnv) => appCell(env, spikePlan(env, 'spike through HAProxy', BALANCER));
