/**
 * Clients that send a purchase's headers promising a 200-byte body, then a byte every 2 s, must
 * not hold the sale: each is answered 408 REQUEST_TIMEOUT (or closed) once REQUEST_BODY_TIMEOUT_MS
 * has passed since its first byte, and behind deploy/haproxy/haproxy.cfg they never take one of
 * an instance's slots, so honest buyers sent meanwhile are served. Real sockets, Redis, Postgres.
 */
import { Balancer, ensureHaproxy, startBalancer } from '../../bench/app/balancer';
import { Api, expectInvariants, injectSender, ordersInDatabase } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { auth } from '../support/tokens';
import { firstAnswer, purchaseHead, trickle, TrickleOutcome } from '../support/trickling-client';

jest.setTimeout(120_000);

const DECLARED_BYTES = 200;
const BYTE_EVERY_MS = 2000;
/** Node looks for requests past their time once a second; the rest is a busy machine's slack. */
const CUT_MARGIN_MS = 1000 + 1500;

const portOf = (url: string): number => Number(new URL(url).port);

/** `count` slow-body purchases of one product by distinct users, started together. */
function trickleCrowd(port: number, productId: string, count: number, giveUpAfterMs = 25_000) {
  let settled = 0;
  const outcomes = Promise.all(
    Array.from({ length: count }, (_, i) =>
      trickle(port, purchaseHead(productId, `slow-${i}`, DECLARED_BYTES), {
        declaredBytes: DECLARED_BYTES,
        everyMs: BYTE_EVERY_MS,
        giveUpAfterMs,
      }).finally(() => settled++),
    ),
  );
  return { outcomes, stillOpen: () => count - settled };
}

/** Every trickler's answer is the contract's 408 or nothing at all (the connection was closed). */
function expectTimeoutAnswersOnly(outcomes: TrickleOutcome[]): number {
  const answers = outcomes.map((o) => firstAnswer(o.answer));
  const wrong = answers.filter((a) => a !== undefined && !(a.status === 408 && isContractTimeout(a.body)));
  expect(wrong.slice(0, 3)).toEqual([]);
  return answers.filter((a) => a !== undefined).length;
}

function isContractTimeout(body: unknown): boolean {
  const fields = (body ?? {}) as Record<string, unknown>;
  return (
    Object.keys(fields).sort().join() === 'code,message,statusCode' &&
    fields.statusCode === 408 &&
    fields.code === 'REQUEST_TIMEOUT' &&
    typeof fields.message === 'string'
  );
}

const cutTimes = (outcomes: TrickleOutcome[]): number[] =>
  outcomes.map((o) => o.closedAfterMs ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);

describe('slow bodies straight at an instance', () => {
  const TIMEOUT_MS = 4000;
  const CROWD = 400;
  let harness: AppHarness;
  let port: number;
  let api: Api;

  beforeAll(async () => {
    harness = await startApp({ REQUEST_BODY_TIMEOUT_MS: String(TIMEOUT_MS) });
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    port = portOf(await harness.app.getUrl());
    api = new Api(injectSender(harness.app));
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
  });

  it('answers each of 400 trickling purchases 408 REQUEST_TIMEOUT once REQUEST_BODY_TIMEOUT_MS has passed', async () => {
    const product = await api.createProduct({ stock: 10 });
    const crowd = trickleCrowd(port, product.id, CROWD);
    const outcomes = await crowd.outcomes;

    // The fault happened: every client kept its connection busy, a byte at a time, for seconds.
    expect(Math.min(...outcomes.map((o) => o.bodyBytesSent))).toBeGreaterThanOrEqual(2);
    expect(Math.max(...outcomes.map((o) => o.bodyBytesSent))).toBeLessThan(DECLARED_BYTES);
    // Cut no earlier than its bound (a slow honest link gets all of it), and not much later.
    const cuts = cutTimes(outcomes);
    expect(cuts[0]).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(cuts[cuts.length - 1]).toBeLessThanOrEqual(TIMEOUT_MS + CUT_MARGIN_MS);
    const answered = expectTimeoutAnswersOnly(outcomes);
    console.log(
      `${CROWD} trickling sockets at an instance (REQUEST_BODY_TIMEOUT_MS=${TIMEOUT_MS}): cut after ${cuts[0]}..${cuts[cuts.length - 1]} ms, ${answered} of them answered 408 REQUEST_TIMEOUT, the rest closed`,
    );
    // Nothing was bought by a body that never arrived.
    const report = await expectInvariants(harness.env.DATABASE_URL, product.id);
    expect(report.live).toBe(0);
  });

  it('still sells to a buyer whose body arrives while the crowd trickles', async () => {
    const product = await api.createProduct({ stock: 1 });
    const crowd = trickleCrowd(port, product.id, 50);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const res = await fetch(`http://127.0.0.1:${port}/products/${product.id}/purchase`, {
      method: 'POST',
      headers: { ...auth('prompt-buyer'), 'content-type': 'application/json' },
      body: JSON.stringify({ quantity: 1 }),
    });
    expect(res.status).toBe(201);
    expect(crowd.stillOpen()).toBe(50);
    await crowd.outcomes;
  });
});

describe('slow bodies through the repository HAProxy config', () => {
  // As the sale is deployed: 256 requests in flight to the instance, 1.5 s in HAProxy's queue.
  const MAX_CONN = 256;
  const QUEUE_MS = 1500;
  const CROWD = 400;
  const BUYERS = 50;
  const STOCK = 30;
  let harness: AppHarness;
  let apiPort: number;
  let balancer: Balancer;
  let api: Api;

  beforeAll(async () => {
    ensureHaproxy();
    // The default REQUEST_BODY_TIMEOUT_MS.
    harness = await startApp();
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    apiPort = portOf(await harness.app.getUrl());
    balancer = await startBalancer(apiPort, { maxConn: MAX_CONN, queueMs: QUEUE_MS });
    api = new Api(injectSender(harness.app));
  }, 60_000);
  afterAll(async () => {
    await balancer?.stop();
    await harness?.close();
  });

  it('serves 50 honest buyers while 400 trickling purchases are open through it', async () => {
    const product = await api.createProduct({ stock: STOCK, perUserLimit: 1 });
    const crowd = trickleCrowd(portOf(balancer.url), product.id, CROWD);
    // Long enough for every trickler's headers and first body bytes to have gone through.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const openWhenBuyersCame = crowd.stillOpen();
    const buyers = await Promise.all(
      Array.from({ length: BUYERS }, (_, i) => timedPurchase(balancer.url, product.id, `honest-${i}`)),
    );
    const outcomes = await crowd.outcomes;

    const cuts = cutTimes(outcomes);

    // The buyers' answers come from the API, and agree with the stock the test created.
    const created = buyers.filter((b) => b.status === 201);
    const soldOut = buyers.filter((b) => b.status === 409 && b.code === 'SOLD_OUT');
    const answered = created.length + soldOut.length;
    const latencies = buyers.map((b) => b.ms).sort((a, b) => a - b);
    const p99 = latencies[Math.ceil(0.99 * latencies.length) - 1];
    console.log(
      `through HAProxy (API_MAXCONN=${MAX_CONN}, BALANCER_QUEUE_MS=${QUEUE_MS}): ${openWhenBuyersCame} trickling sockets open when ${BUYERS} buyers came; ` +
        `buyers: ${created.length} x 201, ${soldOut.length} x 409 SOLD_OUT, others ${JSON.stringify(buyers.filter((b) => b.status !== 201 && b.code !== 'SOLD_OUT').map((b) => `${b.status} ${b.code}`))}; ` +
        `answered ${((100 * answered) / BUYERS).toFixed(0)}%, p99 ${p99} ms; tricklers cut after ${cuts[0]}..${cuts[cuts.length - 1]} ms, ${outcomes.filter((o) => firstAnswer(o.answer)?.status === 408).length} answered 408`,
    );
    expect(answered / BUYERS).toBeGreaterThanOrEqual(0.95);
    expect(p99).toBeLessThanOrEqual(2000);
    expect(created.length).toBeLessThanOrEqual(STOCK);
    if (soldOut.length > 0) expect(created.length).toBe(STOCK);
    const report = await expectInvariants(harness.env.DATABASE_URL, product.id);
    expect(report.live).toBe(created.length);
    expect(report.stock).toBe(STOCK - created.length);
    const stored = await ordersInDatabase(
      harness.env.DATABASE_URL,
      created.map((b) => b.orderId!),
    );
    expect(stored.size).toBe(created.length);

    // The fault happened: all 400 were still open, trickling, when the buyers came.
    expect(openWhenBuyersCame).toBe(CROWD);
    expect(Math.min(...outcomes.map((o) => o.bodyBytesSent))).toBeGreaterThanOrEqual(2);
    // Every trickling connection is gone within 20 s of its first byte, answered 408 or closed.
    expect(cuts[cuts.length - 1]).toBeLessThanOrEqual(20_000);
    expectTimeoutAnswersOnly(outcomes);
  });

  it('straight at the instance with the default bound, every trickler is gone within 20 s of its first byte', async () => {
    const product = await api.createProduct({ stock: 1 });
    const outcomes = await trickleCrowd(apiPort, product.id, 50).outcomes;
    const cuts = cutTimes(outcomes);
    expect(cuts[0]).toBeGreaterThanOrEqual(10_000 - 50);
    expect(cuts[cuts.length - 1]).toBeLessThanOrEqual(20_000);
    expectTimeoutAnswersOnly(outcomes);
    console.log(
      `50 trickling sockets at an instance (default bound): cut after ${cuts[0]}..${cuts[cuts.length - 1]} ms`,
    );
  });
});

interface BuyerOutcome {
  status: number;
  code: string | undefined;
  orderId: string | undefined;
  ms: number;
}

/** One purchase through the balancer, timed from send to the whole answer; a failed request is status 0. */
async function timedPurchase(baseUrl: string, productId: string, user: string): Promise<BuyerOutcome> {
  const started = performance.now();
  try {
    const res = await fetch(`${baseUrl}/products/${productId}/purchase`, {
      method: 'POST',
      headers: { ...auth(user), 'content-type': 'application/json' },
      body: JSON.stringify({ quantity: 1 }),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await res.json().catch(() => undefined)) as { code?: string; id?: string } | undefined;
    const ms = Math.round(performance.now() - started);
    return { status: res.status, code: body?.code, orderId: res.status === 201 ? body?.id : undefined, ms };
  } catch {
    return { status: 0, code: undefined, orderId: undefined, ms: Math.round(performance.now() - started) };
  }
}
