import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { checkHistory } from '../history/check-history';
import { readFinalOrders } from '../history/final-state';
import { HistoryLog } from '../history/writer';
import { ApiClient } from './api-client';
import { readSnapshot } from './audit';
import { readStockUntil } from './buyer-actions';
import { GeneratorThreads, LoadSpan, spanSince } from './drive-workers';
import { GeneratorMeter } from './generator-meter';
import { generatorReport } from './generator-report';
import { HttpTransport } from './http-transport';
import { checkInvariants, InvariantInput, oversoldUnits } from './invariants';
import { mintToken } from './jwt';
import { Recorder } from './recorder';
import { admissionDelta, readAdmission, serverCpuDelta } from './server-metrics';
import { writeReport } from './report-writer';
import { latencyHistogram, perSecond, summarizeLatency } from './stats';
import { LoadTestOptions, LoadTestResult } from './types';
import {
  DEFAULT_REACTION,
  MAX_BOT_ADDRESSES,
  MAX_PEOPLE_ADDRESSES,
  NO_REACTION,
  planAccounts,
  populationsReport,
  PopulationTrace,
  ReactionRange,
} from './populations';
import { DEFAULT_BOT_POLLS_PER_SECOND, driveWaitingRoom } from './waiting-room-driver';
import { drivePlainPopulations } from './plain-populations-driver';
import { PlainAccount, plainPopulationsReport } from './plain-populations';
import { addressingFor, isLoopback, summarizeWaitingRoom, waitingRoomInvariants } from './waiting-room-run';
import { measureApiClockOffset } from './clock-offset';
import { generatorTag, sharedRunProblems, waitForStart, waitForStockAtRest } from './shared-run';

const DEFAULTS = {
  perUserLimit: 1,
  quantity: 1,
  maxRetries: 3,
  maxRetryDelayMs: 2000,
  requestTimeoutMs: 10_000,
  reportDir: 'reports',
};
/** The API's default admission TTL (waitingRoom.admissionTtlS). */
const DEFAULT_ADMISSION_TTL_S = 120;
/** A person's longest reaction must leave most of the admission's life unused. */
const REACTION_SHARE_OF_TTL = 0.25;
/** Re-audits when a check fails, for answers served from a cache that has not caught up yet. */
const AUDIT_SETTLE_TRIES = 3;

export function validateOptions(o: LoadTestOptions): void {
  const problems: string[] = [];
  if (!o.urls.length) problems.push('at least one --url is required');
  for (const url of o.urls) if (!/^https?:\/\/[^/]+/.test(url)) problems.push(`--url ${url} is not an http(s) URL`);
  if ((o.productId === undefined) === (o.stock === undefined))
    problems.push('exactly one of --product and --stock is required');
  if (o.waitingRoom) {
    if (o.durationS === undefined || o.requests !== undefined)
      problems.push('--waiting-room takes --duration (its time bound), not --requests');
    for (const url of o.urls)
      if (!isLoopback(url) && !o.allowRemote)
        problems.push(`--waiting-room targets loopback only (${url}); pass --allow-remote to load another host`);
  } else if ((o.durationS === undefined) === (o.requests === undefined))
    problems.push('exactly one of --duration and --requests is required');
  if (!o.waitingRoom && (o.admitPerSecond !== undefined || o.admissionTtlS !== undefined))
    problems.push('--admit-per-second and --admission-ttl-s need --waiting-room');
  problems.push(...populationProblems(o), ...sharedRunProblems(o));
  problems.push(...generatorProblems(o));
  const positive: [string, number | undefined][] = [
    ['--users', o.users],
    ['--connections', o.connections],
    ['--duration', o.durationS],
    ['--requests', o.requests],
    ['--quantity', o.quantity],
    ['--per-user-limit', o.perUserLimit],
    ['--admission-ttl-s', o.admissionTtlS],
    ['--pay-every', o.payEvery],
    ['--cancel-every', o.cancelEvery],
    ['--read-every-ms', o.readEveryMs],
    ['--payment-ttl-s', o.paymentTtlS],
  ];
  if (o.admitPerSecond !== undefined && !(Number.isInteger(o.admitPerSecond) && o.admitPerSecond > 0))
    problems.push('--admit-per-second must be a positive integer');
  for (const [flag, value] of positive)
    if (value !== undefined && !(Number.isFinite(value) && value > 0))
      problems.push(`${flag} must be a positive number`);
  if (o.stock !== undefined && !(Number.isInteger(o.stock) && o.stock >= 0))
    problems.push('--stock must be an integer >= 0');
  if (o.maxRetries !== undefined && !(Number.isInteger(o.maxRetries) && o.maxRetries >= 0))
    problems.push('--max-retries must be an integer >= 0');
  if (!o.tokenSecret) problems.push('a token secret is required');
  if (problems.length) throw new Error(problems.join('; '));
}

/** The generator's own flags: its threads, and where the servers' metrics are read. */
function generatorProblems(o: LoadTestOptions): string[] {
  const problems: string[] = [];
  if (o.workers !== undefined && !(Number.isInteger(o.workers) && o.workers >= 1 && o.workers <= 256))
    problems.push(`--workers must be an integer from 1 to 256, got ${o.workers}`);
  else if (o.workers !== undefined && o.workers > 1 && (o.waitingRoom || o.bots !== undefined))
    problems.push('--workers spreads the plain purchase flow: the waiting-room and people-and-bots flows run on one');
  if (o.metricsUrls !== undefined && o.metricsUrls.length !== o.urls.length)
    problems.push(
      `--metrics-url: one per --url, in the same order (${o.urls.length} URLs, ${o.metricsUrls.length} given)`,
    );
  for (const url of o.metricsUrls ?? [])
    if (!/^https?:\/\/[^/]+/.test(url)) problems.push(`--metrics-url ${url} is not an http(s) URL`);
  return problems;
}

/**
 * The flags of the populations: bots and their addresses (either flow), and the waiting room's
 * pre-queue, reaction and door settings.
 */
function populationProblems(o: LoadTestOptions): string[] {
  const problems: string[] = [];
  const flags: [string, unknown][] = [
    ['--bot-polls-per-second', o.botPollsPerSecond],
    ['--pre-queue-s', o.preQueueS],
    ['--reaction-ms', o.reactionMs],
    ['--join-work', o.joinWork],
    ['--joins-per-address', o.joinsPerAddress],
    ['--solver-threads', o.solverThreads],
  ];
  const given = flags.filter(([, value]) => value !== undefined).map(([flag]) => flag);
  if (!o.waitingRoom && given.length) problems.push(`${given.join(', ')} need --waiting-room`);
  // Without a waiting room, every account buys up to its limit until the time is up.
  if (!o.waitingRoom && o.bots !== undefined && o.requests !== undefined)
    problems.push('--bots takes --duration (its time bound), not --requests');
  const onProduct = [
    ['--pre-queue-s', o.preQueueS],
    ['--join-work', o.joinWork],
    ['--joins-per-address', o.joinsPerAddress],
  ].filter(([, value]) => value !== undefined);
  if (o.stock === undefined && onProduct.length)
    problems.push(`${onProduct.map(([flag]) => flag).join(', ')} set the created product: they need --stock`);
  const integer = (flag: string, value: number | undefined, min: number, max = Number.MAX_SAFE_INTEGER) => {
    if (value !== undefined && !(Number.isInteger(value) && value >= min && value <= max))
      problems.push(`${flag} must be an integer from ${min} to ${max}, got ${value}`);
  };
  integer('--bots', o.bots, 0);
  integer('--bot-addresses', o.botAddresses, 1, MAX_BOT_ADDRESSES);
  integer('--pre-queue-s', o.preQueueS, 1, 604_800);
  integer('--join-work', o.joinWork, 1);
  integer('--joins-per-address', o.joinsPerAddress, 1);
  integer('--solver-threads', o.solverThreads, 1, 256);
  if (o.botPollsPerSecond !== undefined && !(Number.isFinite(o.botPollsPerSecond) && o.botPollsPerSecond > 0))
    problems.push('--bot-polls-per-second must be a positive number');
  if (o.botAddresses !== undefined && !o.bots) problems.push('--bot-addresses must come with --bots');
  if (o.botIpv6Rotation && !o.bots) problems.push('--bot-ipv6-rotation must come with --bots');
  if (o.bots && o.botAddresses !== undefined && o.botAddresses > o.bots)
    problems.push(`--bot-addresses ${o.botAddresses} must be at most --bots ${o.bots}`);
  if ((o.waitingRoom || o.bots !== undefined) && Number.isFinite(o.users) && o.users > MAX_PEOPLE_ADDRESSES)
    problems.push(`--users: at most ${MAX_PEOPLE_ADDRESSES} people, each with an address of their own`);
  if (o.preQueueS !== undefined && o.durationS !== undefined && o.durationS <= o.preQueueS)
    problems.push(
      `--duration ${o.durationS} must be longer than --pre-queue-s ${o.preQueueS} (the sale starts after it)`,
    );
  const r = o.reactionMs;
  if (r !== undefined) {
    const ttlMs = (o.admissionTtlS ?? DEFAULT_ADMISSION_TTL_S) * 1000;
    if (!(Number.isInteger(r.minMs) && Number.isInteger(r.maxMs) && r.minMs >= 0 && r.maxMs >= r.minMs))
      problems.push('--reaction-ms must be MS or MIN-MAX, whole milliseconds, MIN <= MAX');
    else if (r.maxMs > ttlMs * REACTION_SHARE_OF_TTL)
      problems.push(
        `--reaction-ms ${r.maxMs} must be well under the admission TTL (${ttlMs / 1000} s): at most ${ttlMs * REACTION_SHARE_OF_TTL} ms`,
      );
  }
  return problems;
}

/** Drives purchases against a deployment, audits the contract's invariants, and writes the report. */
export async function runLoadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  validateOptions(options);
  const o = { ...DEFAULTS, ...stripUndefined(options) };
  const urls = o.urls.map((url) => url.replace(/\/+$/, ''));
  const runId = o.runId ?? `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const claims = { issuer: o.tokenIssuer, audience: o.tokenAudience };
  const api = new ApiClient(urls[0], mintToken(o.tokenSecret, `lt-admin-${runId}`, 'admin', undefined, claims));
  // A shared run's generators each have their own users and keys, and put their clocks on the API's.
  const tag = o.shared ? generatorTag(runId, o.shared.generator) : runId;
  const clock = o.shared && (await measureApiClockOffset(urls[0]));

  let start: InvariantInput['start'];
  let product;
  if (o.stock !== undefined) {
    const waitingRoom = o.waitingRoom
      ? stripUndefined({
          admitPerSecond: o.admitPerSecond,
          admissionTtlS: o.admissionTtlS,
          // The pre-queue opens at once: the sale starts preQueueS from now.
          preQueueS: o.preQueueS,
          joinWork: o.joinWork !== undefined ? { squarings: o.joinWork } : undefined,
          joinsPerAddress: o.joinsPerAddress,
        })
      : undefined;
    product = await api.createProduct({
      sku: `LT-${runId}`,
      name: `Load test ${runId}`,
      priceCents: 100,
      stock: o.stock,
      perUserLimit: o.perUserLimit,
      ...(o.preQueueS !== undefined ? { saleStartsAt: new Date(Date.now() + o.preQueueS * 1000).toISOString() } : {}),
      ...(waitingRoom ? { waitingRoom } : {}),
    });
    start = { stock: product.stock, orders: [] };
  } else if (o.shared?.role === 'follower') {
    // The lead's product: its stock and orders at the start are the lead's to record.
    product = await api.getProduct(o.productId as string);
    start = { stock: product.stock, orders: [] };
  } else {
    const snapshot = await readSnapshot(api, o.productId as string);
    product = snapshot.product;
    start = { stock: snapshot.stock, orders: snapshot.orders };
  }
  if (o.waitingRoom && !product.waitingRoom)
    throw new Error(`product ${product.id} has no waiting room: --waiting-room needs one (create it with --stock)`);
  const bots = o.bots ?? 0;
  // Without a waiting room, `--bots` (0 too: the baseline) makes the run's accounts two populations.
  const plainPopulations = !o.waitingRoom && o.bots !== undefined;
  const reaction: ReactionRange = o.reactionMs ?? (bots > 0 || o.preQueueS ? DEFAULT_REACTION : NO_REACTION);
  const ttlS = product.waitingRoom?.admissionTtlS ?? DEFAULT_ADMISSION_TTL_S;
  if (o.waitingRoom && reaction.maxMs > ttlS * 1000 * REACTION_SHARE_OF_TTL)
    throw new Error(
      `--reaction-ms ${reaction.maxMs} must be well under product ${product.id}'s admission TTL (${ttlS} s)`,
    );

  const productsReadAtMs = Date.now();
  o.onSaleReady?.({ runId, productId: product.id });
  const userPrefix = `lt-${tag}-`;
  const user = (id: string) => ({ id, token: mintToken(o.tokenSecret, id, 'user', undefined, claims) });
  const users = [
    ...Array.from({ length: o.users }, (_, n) => user(`${userPrefix}${n}`)),
    ...Array.from({ length: bots }, (_, k) => user(`${userPrefix}bot${k}`)),
  ];
  const plainFlow = !o.waitingRoom && !plainPopulations;
  // Threads load their code before the clock starts: a second of start-up is not the server's.
  const threads = plainFlow
    ? await GeneratorThreads.open(
        { ...o, urls, productId: product.id, users, runId: tag, recordHistory: recordsHistory(o) },
        o.workers ?? availableParallelism(),
        o.progressEveryMs,
      )
    : undefined;
  const metricsUrls = (o.metricsUrls ?? urls).map((url) => url.replace(/\/+$/, ''));
  const admissionBefore = await readAdmission(metricsUrls);
  // Threads and meters are ready: every generator of a shared run begins at the one moment.
  if (o.shared?.startAtMs !== undefined && clock) await waitForStart(o.shared.startAtMs, clock);
  const startedAt = Date.now();
  const cpuAtStart = process.cpuUsage();
  const mainMeter = threads ? undefined : new GeneratorMeter(startedAt);
  mainMeter?.start();
  let load: LoadSpan | undefined;
  const liveProgress = (now: number) =>
    threads && threads.workers > 1 ? threads.progress(now) : recorder.progress(now);
  const recorder = new Recorder(startedAt);
  const history = recordsHistory(o)
    ? new HistoryLog('npm run loadtest', [
        {
          productId: product.id,
          initialStock: start.stock,
          perUserLimit: product.perUserLimit,
          preexistingOrderIds: start.orders.map((x) => x.id),
          ...(o.paymentTtlS !== undefined ? { paymentTtlS: o.paymentTtlS } : {}),
        },
      ])
    : undefined;
  const shared =
    o.shared && clock
      ? {
          id: runId,
          generator: o.shared.generator,
          role: o.shared.role,
          clock,
          ...(o.shared.role === 'lead' ? { productsReadAtMs } : {}),
        }
      : undefined;
  if (history && shared) history.meta.run = shared;
  const ticker = o.onProgress
    ? setInterval(() => o.onProgress?.(liveProgress(Date.now())), o.progressEveryMs ?? 1000)
    : undefined;
  let traces: PopulationTrace[] | undefined;
  let accounts: PlainAccount[] | undefined;
  const addressing = addressingFor(urls);
  const botPollsPerSecond = o.botPollsPerSecond ?? DEFAULT_BOT_POLLS_PER_SECOND;
  const stopReading = new AbortController();
  const readerTransport = new HttpTransport(1, o.requestTimeoutMs);
  const reading = o.readEveryMs
    ? readStockUntil(readerTransport, urls, product.id, o.readEveryMs, stopReading.signal, history)
    : undefined;
  try {
    if (o.waitingRoom) {
      const saleStartsAtMs = product.saleStartsAt ? Date.parse(product.saleStartsAt) : null;
      const plans = planAccounts({
        people: o.users,
        bots,
        botAddresses: o.botAddresses ?? 1,
        botIpv6Rotation: o.botIpv6Rotation,
        // People arrive over what is left of the pre-queue when the run begins.
        preQueueMs: o.preQueueS !== undefined && saleStartsAtMs !== null ? Math.max(0, saleStartsAtMs - startedAt) : 0,
        reaction,
        loopback: addressing === 'loopback-source',
      });
      traces = await driveWaitingRoom({
        ...o,
        durationS: o.durationS as number,
        urls,
        productId: product.id,
        users,
        recorder,
        runId,
        history,
        plans,
        addressing,
        botPollsPerSecond,
        joinWork: o.joinWork !== undefined || Boolean(product.waitingRoom?.joinWork),
      });
    } else if (plainPopulations) {
      accounts = await drivePlainPopulations({
        ...o,
        durationS: o.durationS as number,
        urls,
        productId: product.id,
        users,
        recorder,
        runId,
        history,
        plans: planAccounts({
          people: o.users,
          bots,
          botAddresses: o.botAddresses ?? 1,
          botIpv6Rotation: o.botIpv6Rotation,
          preQueueMs: 0,
          reaction: NO_REACTION,
          loopback: addressing === 'loopback-source',
        }),
        addressing,
        joinWork: false,
        perUserLimit: product.perUserLimit,
      });
    } else
      load = await threads?.run(
        { ...o, urls, productId: product.id, users, recorder, runId: tag, history },
        cpuAtStart,
      );
  } finally {
    if (ticker) clearInterval(ticker);
    stopReading.abort();
    await reading;
    readerTransport.close();
  }
  if (mainMeter) load = spanSince(cpuAtStart, [mainMeter.stop(recorder.requests)]);
  const finishedAt = load?.endedAt ?? Date.now();
  o.onProgress?.(recorder.progress(finishedAt));
  const admissionAfter = admissionBefore && (await readAdmission(metricsUrls));

  const unresolved = Object.entries(recorder.attemptOutcomes)
    .filter(([key]) => /^(error|503|429)\b|^202 PENDING/.test(key))
    .reduce((sum, [, count]) => sum + count, 0);
  let invariants: LoadTestResult['invariants'] = [];
  let end;
  // A follower leaves the audit to its lead, and the judgement of the whole sale to check-history.
  const audits = o.shared?.role !== 'follower';
  if (o.shared?.role === 'lead') await waitForStockAtRest(api, product.id);
  for (let i = 0; ; i++) {
    end = audits
      ? await readSnapshot(api, product.id)
      : { stock: (await api.getProduct(product.id)).stock, orders: [] };
    if (!audits) break;
    invariants = checkInvariants({
      start,
      end,
      perUserLimit: product.perUserLimit,
      userPrefix,
      createdOrderIds: recorder.createdOrderIds,
      unresolvedAttempts: unresolved,
      attempts: recorder.attempts,
      retries: recorder.retries,
      users: users.length,
      quantity: o.quantity,
    });
    if (invariants.every((r) => r.ok || r.severity === 'warning') || i + 1 >= AUDIT_SETTLE_TRIES) break;
    await sleep(1000);
  }

  const elapsedS = (finishedAt - startedAt) / 1000;
  const result: LoadTestResult = {
    runId,
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: new Date(finishedAt).toISOString(),
    urls,
    product: {
      id: product.id,
      stock: end.stock,
      perUserLimit: product.perUserLimit,
      createdByRun: o.stock !== undefined,
      initialStock: start.stock,
      finalStock: end.stock,
    },
    config: {
      users: o.users,
      connections: o.connections,
      durationS: o.durationS,
      requests: o.requests,
      quantity: o.quantity,
      maxRetries: o.maxRetries,
      ...(o.waitingRoom ? { waitingRoom: true } : {}),
      ...(bots ? { bots, botAddresses: o.botAddresses ?? 1 } : {}),
      ...(o.preQueueS !== undefined ? { preQueueS: o.preQueueS } : {}),
      workers: threads?.workers ?? 1,
    },
    elapsedS,
    attempts: recorder.attempts,
    requests: recorder.requests,
    retries: recorder.retries,
    purchases: recorder.createdOrderIds.size,
    purchasesPerSecond: recorder.purchasesPerSecond(elapsedS),
    sellOut: sellOutOf(recorder),
    requestsPerSecond: perSecond(recorder.requests, elapsedS),
    byStatus: recorder.byStatus,
    byCode: recorder.byCode,
    attemptOutcomes: recorder.attemptOutcomes,
    errors: recorder.errors,
    latency: summarizeLatency(recorder.latencies),
    histogram: latencyHistogram(recorder.latencies),
    timeline: recorder.timeline(),
    admission: admissionBefore && admissionAfter ? admissionDelta(admissionBefore, admissionAfter) : undefined,
    generator: generatorReport(
      load?.threads ?? [],
      load?.processCpuMs ?? 0,
      finishedAt - startedAt,
      serverCpuDelta(admissionBefore, admissionAfter),
    ),
    invariants,
    oversoldUnits: oversoldUnits(start, end),
    ok: invariants.every((r) => r.ok || r.severity === 'warning'),
  };
  if (traces) {
    result.waitingRoom = await summarizeWaitingRoom(api, product, traces, startedAt);
    result.invariants.push(...waitingRoomInvariants(result.waitingRoom));
    result.populations = populationsReport(traces, {
      ordersByUser: recorder.createdByUser,
      quantity: o.quantity,
      stock: start.stock,
      addressing,
      reactionMs: reaction,
      botPollsPerSecond,
      preQueueS: o.preQueueS,
      // As the product says it is set (a server that ignored the flag shows none).
      joinWork: product.waitingRoom?.joinWork?.squarings,
      joinsPerAddress: product.waitingRoom?.joinsPerAddress ?? undefined,
      solverThreads: o.solverThreads ?? availableParallelism(),
    });
    result.ok = result.invariants.every((r) => r.ok || r.severity === 'warning');
  }
  if (accounts)
    result.populations = plainPopulationsReport(accounts, {
      ordersByUser: recorder.createdByUser,
      quantity: o.quantity,
      stock: start.stock,
      perUserLimit: product.perUserLimit,
      addressing,
      maxRetries: o.maxRetries,
    });
  if (history) {
    if (product.waitingRoom) {
      const saleStartsAtMs = product.saleStartsAt ? Date.parse(product.saleStartsAt) : null;
      history.meta.products[0].waitingRoom = {
        saleStartsAtMs,
        seed: saleStartsAtMs !== null ? (await api.queueSummary(product.id)).seed : null,
      };
    }
    const finalReadAtMs = Date.now();
    if (o.check) {
      const source = o.databaseUrl ? { databaseUrl: o.databaseUrl } : { url: urls[0], tokenSecret: o.tokenSecret };
      result.historyCheck = checkHistory(history.meta, history.ops, await readFinalOrders([product.id], source), {
        finalReadAtMs,
        require: o.requireRules,
      });
      result.ok &&= result.historyCheck.ok;
    }
    result.historyPath = o.historyFile ?? join(o.reportDir ?? 'reports', `history-${tag}.jsonl`);
    history.save(result.historyPath);
  }
  if (shared) result.shared = shared;
  if (o.reportDir !== null) result.reportPaths = writeReport(result, o.reportDir);
  return result;
}

/** The sale's own pace: orders created by the first SOLD_OUT, over the time it took to come. */
function sellOutOf(recorder: Recorder): LoadTestResult['sellOut'] {
  if (recorder.firstSoldOutAt === undefined) return undefined;
  const afterS = Math.max(0.001, (recorder.firstSoldOutAt - recorder.startedAt) / 1000);
  return { afterS, orders: recorder.createdBySoldOut, perSecond: recorder.createdBySoldOut / afterS };
}

/** Whether the run records a history: asked for, needed by the checker, or one generator's of a shared run. */
function recordsHistory(o: LoadTestOptions): boolean {
  return Boolean(o.historyFile || o.check || o.shared);
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
