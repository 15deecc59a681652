import { parseArgs } from 'node:util';
import { formatCheck, formatSummary, runLoadTest, terminalProgress } from '../loadtest';
import { startStack } from '../infra/stack';
import { REDIS_TOPOLOGIES, RedisTopology } from '../infra/redis-topology';
import { mintToken } from '../loadtest/jwt';
import { serveStorefront } from '../../examples/storefront/serve';

const DEMO_SECRET = 'demo-secret-for-the-flash-sale';
/** The instances' payment TTL, set here so the history checker holds the app to it rather than to what it wrote. */
const PAYMENT_TTL_S = 900;

/**
 * `npm run demo`: a whole flash sale on this machine. Brings up Postgres and Redis (or uses the
 * running ones), starts API instances, puts one product on sale, lets thousands of simulated
 * shoppers at it, checks the contract's invariants, records every request as a history and
 * judges it with the history checker, and writes a report; then stops everything
 * it started.
 */
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      instances: { type: 'string', default: '2' },
      stock: { type: 'string', default: '1000' },
      users: { type: 'string', default: '10000' },
      requests: { type: 'string', default: '20000' },
      connections: { type: 'string', default: '64' },
      'per-user-limit': { type: 'string', default: '1' },
      keep: { type: 'boolean', default: false },
      topology: { type: 'string', default: 'standalone' },
      database: { type: 'string', default: 'flashsale_demo' },
      // The iss / aud its instances require and its tokens carry, as a production deployment has them.
      'token-issuer': { type: 'string' },
      'token-audience': { type: 'string' },
    },
  });
  const claims = {
    issuer: values['token-issuer'] ?? (process.env.JWT_ISSUER || undefined),
    audience: values['token-audience'] ?? (process.env.JWT_AUDIENCE || undefined),
  };
  const required = {
    ...(claims.issuer ? { JWT_ISSUER: claims.issuer } : {}),
    ...(claims.audience ? { JWT_AUDIENCE: claims.audience } : {}),
  };
  const instances = count(values.instances, '--instances');
  const topology = values.topology as RedisTopology;
  if (!REDIS_TOPOLOGIES.includes(topology)) throw new Error(`--topology must be one of ${REDIS_TOPOLOGIES.join(', ')}`);
  // With --keep, the storefront example is served on its own origin, which the API allows.
  const storefront = values.keep ? await serveStorefront() : undefined;
  console.log(`[demo] starting Postgres, Redis (${topology}) and ${instances} API instance(s)…`);
  const stack = await startStack({
    database: values.database!,
    instances,
    topology,
    logDir: '.infra/logs',
    env: {
      NODE_ENV: 'development',
      JWT_SECRET: DEMO_SECRET,
      ...required,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '50',
      ORDER_PAYMENT_TTL_S: String(PAYMENT_TTL_S),
      ...(storefront ? { CORS_ORIGINS: storefront.origin } : {}),
    },
  }).catch(async (error: unknown) => {
    await storefront?.close();
    throw error;
  });
  try {
    const urls = stack.apis.map((api) => api.url);
    console.log(`[demo] Redis: ${stack.redisDescription}`);
    console.log(`[demo] API instances: ${urls.join(', ')}  (Swagger: ${urls[0]}/docs)`);
    const progress = terminalProgress();
    const result = await runLoadTest({
      urls,
      stock: count(values.stock, '--stock'),
      perUserLimit: count(values['per-user-limit'], '--per-user-limit'),
      users: count(values.users, '--users'),
      requests: count(values.requests, '--requests'),
      connections: count(values.connections, '--connections'),
      tokenSecret: DEMO_SECRET,
      tokenIssuer: claims.issuer,
      tokenAudience: claims.audience,
      onProgress: progress.onProgress,
      // Every request recorded and judged by the history checker against the final orders (with
      // the database's paid and closed times); some buyers pay or cancel, one reader reads the
      // stock, so that every rule has something to judge, and must.
      check: true,
      databaseUrl: stack.databaseUrl,
      payEvery: 10,
      cancelEvery: 10,
      readEveryMs: 100,
      paymentTtlS: PAYMENT_TTL_S,
      requireRules: ['all'],
    });
    progress.done();
    console.log(formatSummary(result));
    if (result.historyCheck) console.log(formatCheck(result.historyCheck));
    if (result.historyPath)
      console.log(
        `[demo] history: ${result.historyPath} (npm run check-history -- ${result.historyPath} --require all --url <api> --token-secret <secret>)`,
      );
    if (result.reportPaths) console.log(`[demo] report: ${result.reportPaths.html}`);
    if (storefront)
      await waitForCtrlC(
        urls[0],
        storefront.pageUrl({
          api: urls[0],
          product: result.product.id,
          token: mintToken(DEMO_SECRET, 'storefront-shopper', 'user', undefined, claims),
        }),
      );
    return result.ok ? 0 : 1;
  } finally {
    console.log('[demo] stopping what the demo started…');
    await storefront?.close();
    await stack.stop();
  }
}

function count(raw: string | undefined, flag: string): number {
  if (!raw || !/^[1-9]\d*$/.test(raw)) throw new Error(`${flag} must be a positive integer`);
  return Number(raw);
}

function waitForCtrlC(url: string, storefrontPage: string): Promise<void> {
  console.log(`[demo] storefront (another origin, allowed by CORS_ORIGINS): ${storefrontPage}`);
  console.log(`[demo] still serving at ${url}; Ctrl-C stops everything.`);
  return new Promise((resolve) => process.once('SIGINT', () => resolve()));
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`[demo] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
