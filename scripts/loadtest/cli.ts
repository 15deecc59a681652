import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatCheck } from '../history/check-history';
import { runLoadTest } from './run-load-test';
import { parseReaction } from './populations';
import { terminalProgress } from './progress';
import { defaultGenerator, SharedRole } from './shared-run';
import { formatSummary } from './summary-table';
import {
  evaluateThresholds,
  exitCodeOf,
  formatThresholds,
  parseThresholds,
  Threshold,
  THRESHOLD_EXIT,
} from './thresholds';
import { LoadTestOptions, LoadTestResult } from './types';

/** The API's own development default (apps/api config), so a local run needs no flag. */
const DEV_JWT_SECRET = 'dev-only-secret-change-me';

export const USAGE = `usage: npm run loadtest -- --url http://host:port [--url ...] (--product ID | --stock N)
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
  several machines, one sale: --run-id X --role lead (--stock N | --product ID) | --role follower --product ID
    [--generator NAME] [--start-at ISO-TIME]; judge it: npm run check-history -- <every generator's history> --url ...
  generator: [--workers N] (threads of the purchase load, default: the machine's cores) [--metrics-url U ...] (each
    instance's /metrics base, in --url order, when not on its public port: a production instance's METRICS_PORT)
  output: [--json] (the summary as JSON on stdout, the text on stderr) [--fail-on 'p99>500ms,oversell>0']
    (fail the run when a condition holds; metrics p50 p90 p99 max (ms or s), oversell errors unresolved purchases_per_s;
    operators > >= < <= ==) [--help | -h] [--version]
exit codes: 0 invariants hold (and the history check passed), 1 an invariant or the history check failed, 2 bad usage or the run
  could not be set up, ${THRESHOLD_EXIT} the invariants held but a --fail-on condition held; every flag: docs/LOADTEST.md`;

function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new Error(`--${flag} must be a number, got "${value}"`);
  return parsed;
}

/** Every flag; `strict` parsing refuses any other. */
const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  json: { type: 'boolean' },
  'fail-on': { type: 'string' },
  url: { type: 'string', multiple: true },
  product: { type: 'string' },
  stock: { type: 'string' },
  users: { type: 'string' },
  connections: { type: 'string' },
  workers: { type: 'string' },
  'metrics-url': { type: 'string', multiple: true },
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
  'run-id': { type: 'string' },
  role: { type: 'string' },
  generator: { type: 'string' },
  'start-at': { type: 'string' },
} as const;

export function parseCliArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): LoadTestOptions {
  const { values } = parseArgs({ args: argv, strict: true, options: OPTIONS });
  return {
    urls: (values.url ?? []).flatMap((url) => url.split(',')).filter(Boolean),
    productId: values.product,
    stock: number('stock', values.stock),
    users: number('users', values.users) ?? NaN,
    connections: number('connections', values.connections) ?? NaN,
    workers: number('workers', values.workers),
    metricsUrls: values['metrics-url']?.flatMap((url) => url.split(',')).filter(Boolean),
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
    runId: values['run-id'],
    shared:
      values['run-id'] !== undefined || values.role !== undefined
        ? {
            role: values.role as SharedRole,
            generator: values.generator ?? defaultGenerator(),
            startAtMs: values['start-at'] === undefined ? undefined : Date.parse(values['start-at']),
          }
        : undefined,
  };
}

/** What a shared run's lead tells the other machines, once its product is for sale. */
export function followerCommand(o: LoadTestOptions, productId: string): string {
  const startAt = o.shared?.startAtMs === undefined ? '' : ` --start-at ${new Date(o.shared.startAtMs).toISOString()}`;
  return `npm run loadtest -- --run-id ${o.runId} --role follower --product ${productId} --url ${o.urls.join(',')}${startAt} --users U --connections C (--duration S | --requests R)`;
}

export type Command =
  | { action: 'help' }
  | { action: 'version' }
  | { action: 'run'; options: LoadTestOptions; json: boolean; thresholds: Threshold[] };

/** What the command line asks for; --help and --version win over every other flag, as is usual. */
export function parseCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Command {
  if (argv.includes('--help') || argv.includes('-h')) return { action: 'help' };
  if (argv.includes('--version')) return { action: 'version' };
  const { values } = parseArgs({ args: argv, strict: true, options: OPTIONS });
  const thresholds = values['fail-on'] === undefined ? [] : parseThresholds(values['fail-on']);
  return { action: 'run', options: parseCliArgs(argv, env), json: values.json === true, thresholds };
}

export function versionLine(): string {
  const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return `flash-sale loadtest ${version} (node ${process.version})`;
}

/** The summary on stdout under --json: the figures a CI step reads, not the per-second timeline. */
export function jsonSummary(
  result: LoadTestResult,
  thresholds: ReturnType<typeof evaluateThresholds>,
  exitCode: number,
) {
  const { timeline: _timeline, histogram: _histogram, ...summary } = result;
  return { exitCode, ...summary, thresholds };
}

async function main(): Promise<number> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  let command: Command;
  try {
    command = parseCommand(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (command.action === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command.action === 'version') {
    console.log(versionLine());
    return 0;
  }
  // Under --json stdout carries the JSON alone; the text a person reads goes to stderr.
  const say = command.json ? (text: string) => console.error(text) : (text: string) => console.log(text);
  const progress = terminalProgress(process.stderr);
  try {
    const lead = command.options.shared?.role === 'lead';
    const result = await runLoadTest({
      ...command.options,
      onProgress: progress.onProgress,
      onSaleReady: lead
        ? ({ productId }) =>
            console.error(
              `run ${command.options.runId}: product ${productId} is for sale; on each other machine: ${followerCommand(command.options, productId)}`,
            )
        : undefined,
    });
    progress.done();
    say(formatSummary(result));
    if (result.historyCheck) say(formatCheck(result.historyCheck));
    if (result.shared) {
      const { generator, role, clock } = result.shared;
      say(
        `run ${result.runId}: generator ${generator} (${role}), clock ${clock.offsetMs >= 0 ? '+' : ''}${clock.offsetMs.toFixed(1)} ± ${clock.uncertaintyMs.toFixed(1)} ms against ${clock.against}\nhistory: ${result.historyPath} (judge the run once every generator is done: npm run check-history -- <every generator's history> --url ${result.urls[0]})`,
      );
    } else if (result.historyPath)
      say(
        `history: ${result.historyPath}${result.historyCheck ? '' : ` (judge it: npm run check-history -- ${result.historyPath} --url ${result.urls[0]})`}`,
      );
    const outcomes = evaluateThresholds(command.thresholds, result);
    if (outcomes.length) say(formatThresholds(outcomes));
    const code = exitCodeOf(result, outcomes);
    if (command.json) process.stdout.write(`${JSON.stringify(jsonSummary(result, outcomes, code), null, 2)}\n`);
    return code;
  } catch (error) {
    progress.done();
    console.error(`load test failed: ${(error as Error).message}`);
    if (/required|must be|is not an http|--waiting-room|need --|takes --/.test((error as Error).message))
      console.error(USAGE);
    return 2;
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    // main answers its own failures with a code; this is for one it did not expect (a bad .env).
    (error: unknown) => {
      console.error(`load test failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(2);
    },
  );
}
