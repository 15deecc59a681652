import { randomBytes } from 'node:crypto';
import { ApiProcess } from '../../scripts/infra/api-process';
import { ownDatabaseAs } from '../../scripts/infra/databases';
import { freePort } from '../../test/support/free-port';
import { benchScratchDir } from './scratch-dir';

/** A fresh secret per bench run: the instances run as in production, which refuses published secrets. */
export const BENCH_SECRET = randomBytes(32).toString('hex');
/** The `aud` production requires of every token (JWT_AUDIENCE); the bench's tokens carry it. */
export const BENCH_AUDIENCE = 'flash-sale-bench';

/**
 * N built API instances on one database and Redis, tuned for measuring, not for defaults.
 * `entry`: another build's `main.js` (an earlier commit's, for `--baseline`); this checkout's when omitted.
 * `node`: the node binary that runs it (`--baseline-node`); the bench's own when omitted.
 * `v8Flags`: V8 flags in place of `npm start`'s (API_NODE_FLAGS), for comparing sets of them.
 */
export async function startInstances(count: number, databaseUrl: string, redisUrl: string, profile = false, entry?: string, node?: string, v8Flags?: string[]): Promise<{ apis: ApiProcess[]; profileDir?: string }> {
  const profileDir = profile ? benchScratchDir('bench-prof') : undefined;
  const appDatabaseUrl = await ownerRoleUrl(databaseUrl);
  const apis: ApiProcess[] = [];
  for (let i = 0; i < count; i++) {
    const api = new ApiProcess({
      port: await freePort(),
      env: {
        DATABASE_URL: appDatabaseUrl,
        REDIS_URL: redisUrl,
        JWT_SECRET: BENCH_SECRET,
        JWT_AUDIENCE: BENCH_AUDIENCE,
        // The bench's own redis-server on loopback has no password: said on purpose, as production requires.
        REDIS_ALLOW_NO_AUTH: 'true',
        LOG_LEVEL: 'warn',
        // Measured as deployed: production's CORS (none), docs off, /metrics on its own port.
        NODE_ENV: 'production',
        METRICS_PORT: String(await freePort()),
        RATE_LIMIT_PER_SECOND: '1000000',
        QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '1000000',
        PUBLIC_READS_PER_SECOND_PER_ADDRESS: '1000000',
        DB_MIGRATE: i === 0 ? 'true' : 'false',
      },
      nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
      entry,
      node,
      v8Flags,
    });
    await api.start();
    apis.push(api);
  }
  return { apis, profileDir };
}

const BENCH_ROLE = 'flashsale_bench_app';

/**
 * The bench database's URL for a role of the app's own, as deployed (production refuses the
 * postgres:postgres credentials): BENCH_ROLE, no superuser, owning the database and its schema,
 * with a fresh password each run.
 */
const ownerRoleUrl = (databaseUrl: string): Promise<string> => ownDatabaseAs(databaseUrl, BENCH_ROLE);

/** `extra`: more fields of the product, e.g. its `waitingRoom`. */
export async function createProduct(url: string, adminToken: string, stock: number, perUserLimit: number, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await fetch(`${url}/admin/products`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ sku: `BENCH-${Date.now()}-${Math.random().toString(36).slice(2, 7)}`, name: 'bench product', priceCents: 100, stock, perUserLimit, ...extra }),
  });
  const body = (await res.json()) as { id?: string };
  if (res.status !== 201 || !body.id) throw new Error(`creating the bench product failed: HTTP ${res.status}`);
  return body.id;
}
