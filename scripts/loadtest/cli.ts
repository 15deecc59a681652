import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatCheck } from '../history/check-history';
import { runLoadTest } from './run-load-test';
import { parseReaction } from './populations';
import { terminalProgress } from './progress';
import { formatSummary } from './summary-table';
import { LoadTestOptions } from './types';

/** The API's own development default (apps/api config), so a local run needs no flag. */
const DEV_JWT_SECRET = 'dev-only-secret-change-me';

const USAGE = `usage: npm run loadtest -- --url http://host:port [--url ...] (--product ID | --stock N)
  --users U --connections C (--duration S | --requests R) [--quantity Q] [--token-secret S] [--token-issuer I] [--token-audience A]
  [--per-user-limit L] [--report-dir reports | --no-report] [--max-retries 3] [--max-retry-delay-ms 2000]
  [--timeout-ms 10000] [--history FILE] [--check [--database-url URL] [--require all|RULE,...]]
  [--pay-every N] [--cancel-every N] [--read-every-ms MS] [--payment-ttl-s S]
  waiting room: --waiting-room --users PEOPLE --duration S [--admit-per-second N] [--admission-ttl-s S] [--allow-remote]
    [--pre-queue-s S] [--reaction-ms MIN-MAX | MS] [--bots B [--bot-addresses A] [--bot-polls-per-second 20]]
    [--bot-ipv6-rotation] (each bot also claims its own address of one IPv6 /64 in X-Forwarded-For: TRUST_PROXY=loopback)
    [--join-work SQUARINGS] [--joins-per-address N] [--solver-threads T]
    people arrive over the pre-queue (sale starts S s in), poll at pollAfterMs, buy after a reaction (default 1500-3000 ms
    with bots or a pre-queue, else 0); bots join at once, poll at the per-ticket limit, buy and retry at once. Each person
    and each bot address sends from its own 127.x.y.z (X-Forwarded-For against a remote target: it must trust the proxy)
  people and bots, no waiting room: --users PEOPLE --bots B [--bot-addresses A] --duration S (not --requests)
    every account buys up to the per-user limit at once; people re-send a refused purchase after its Retry-After
    (--max-retries a purchase), bots every 10 ms, Retry-After ignored (1000 sends a purchase); --bots 0: people alone
exit codes: 0 invariants hold (and the history check passed), 1 an invariant or the history check failed, 2 bad usage or the run could not be set up`;

function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new Error(`--${flag} must be a number, got "${value}"`);
  return parsed;
}

export function parseCliArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): LoadTestOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      url: { type: 'string', multiple: true },
      product: { type: 'string' },
      stock: { type: 'string' },
      users: { type: 'string' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      requests: { type: 'string' },
      quantity: { type: 'string' },
      'token-secret': { type: 'string' },
      'token-issuer': { type: 'string' },
      'token-audience': { type: 'string' },
      'per-user-limit': { type: 'string' },
      'report-dir': { type: 'string' },
      'no-report': { type: 'boolean' },
      'max-retries': { type: 'string' },
      'max-retry-delay-ms': { type: 'string' },
      'timeout-ms': { type: 'string' },
      history: { type: 'string' },
      check: { type: 'boolean' },
      'database-url': { type: 'string' },
      'waiting-room': { type: 'boolean' },
      'admit-per-second': { type: 'string' },
      'admission-ttl-s': { type: 'string' },
      'allow-remote': { type: 'boolean' },
      bots: { type: 'string' },
      'bot-addresses': { type: 'string' },
      'bot-ipv6-rotation': { type: 'boolean' },
      'bot-polls-per-second': { type: 'string' },
      'pre-queue-s': { type: 'string' },
      'reaction-ms': { type: 'string' },
      'join-work': { type: 'string' },
      'joins-per-address': { type: 'string' },
      'solver-threads': { type: 'string' },
      'pay-every': { type: 'string' },
      'cancel-every': { type: 'string' },
      'read-every-ms': { type: 'string' },
      'payment-ttl-s': { type: 'string' },
      require: { type: 'string' },
    },
  });
  return {
    urls: (values.url ?? []).flatMap((url) => url.split(',')).filter(Boolean),
    productId: values.product,
    stock: number('stock', values.stock),
    users: number('users', values.users) ?? NaN,
    connections: number('connections', values.connections) ?? NaN,
    durationS: number('duration', values.duration),
    requests: number('requests', values.requests),
    quantity: number('quantity', values.quantity),
    perUserLimit: number('per-user-limit', values['per-user-limit']),
    maxRetries: number('max-retries', values['max-retries']),
    maxRetryDelayMs: number('max-retry-delay-ms', values['max-retry-delay-ms']),
    requestTimeoutMs: number('timeout-ms', values['timeout-ms']),
    tokenSecret: values['token-secret'] ?? (env.JWT_SECRET || DEV_JWT_SECRET),
    // What the deployment requires of a token (production always requires an audience).
    tokenIssuer: values['token-issuer'] ?? (env.JWT_ISSUER || undefined),
    tokenAudience: values['token-audience'] ?? (env.JWT_AUDIENCE || undefined),
    reportDir: values['no-report'] ? null : (values['report-dir'] ?? 'reports'),
    historyFile: values.history,
    check: values.check,
    databaseUrl: values['database-url'],
    waitingRoom: values['waiting-room'],
    admitPerSecond: number('admit-per-second', values['admit-per-second']),
    admissionTtlS: number('admission-ttl-s', values['admission-ttl-s']),
    allowRemote: values['allow-remote'],
    bots: number('bots', values.bots),
    botAddresses: number('bot-addresses', values['bot-addresses']),
    botIpv6Rotation: values['bot-ipv6-rotation'],
    botPollsPerSecond: number('bot-polls-per-second', values['bot-polls-per-second']),
    preQueueS: number('pre-queue-s', values['pre-queue-s']),
    reactionMs: values['reaction-ms'] === undefined ? undefined : parseReaction(values['reaction-ms']),
    joinWork: number('join-work', values['join-work']),
    joinsPerAddress: number('joins-per-address', values['joins-per-address']),
    solverThreads: number('solver-threads', values['solver-threads']),
    payEvery: number('pay-every', values['pay-every']),
    cancelEvery: number('cancel-every', values['cancel-every']),
    readEveryMs: number('read-every-ms', values['read-every-ms']),
    paymentTtlS: number('payment-ttl-s', values['payment-ttl-s']),
    requireRules: values.require
      ?.split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  };
}

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let options: LoadTestOptions;
  try {
    options = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const progress = terminalProgress(process.stderr);
  try {
    const result = await runLoadTest({ ...options, onProgress: progress.onProgress });
    progress.done();
    console.log(formatSummary(result));
    if (result.historyCheck) console.log(formatCheck(result.historyCheck));
    if (result.historyPath)
      console.log(
        `history: ${result.historyPath}${result.historyCheck ? '' : ` (judge it: npm run check-history -- ${result.historyPath} --url ${result.urls[0]})`}`,
      );
    return result.ok ? 0 : 1;
  } catch (error) {
    progress.done();
    console.error(`load test failed: ${(error as Error).message}`);
    if (/required|must be|is not an http|--waiting-room|need --|takes --/.test((error as Error).message))
      console.error(USAGE);
    return 2;
  }
}

if (require.main === module) {
  main().then((code) => process.exit(code));
}
