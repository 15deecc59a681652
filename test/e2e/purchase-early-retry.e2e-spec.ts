/**
 * On a product without a waiting room, a purchase retried before the Retry-After of its last 429
 * or 503 is refused at once with 429 RATE_LIMITED (the seconds still to wait as its Retry-After),
 * before any Postgres work, and wins nothing; one sent when it cannot have been in flight already
 * starts the wait again, so a client retrying without waiting wins nothing more while it does
 * (docs/API.md, "Retrying a refused purchase").
 */
import { Client } from 'pg';
import { RATE_LIMIT_WINDOW_MS } from '../../apps/api/src/common/throttling/rate-limiter';
import { AppHarness, startApp } from '../support/app-harness';
import {
  Api,
  ApiResponse,
  expectContractError,
  expectInvariants,
  injectSender,
  sleep,
  withPg,
} from '../support/api-client';

jest.setTimeout(90_000);

const RUN_MS = 4500;
const EARLY = /before its Retry-After/;

interface Attempt {
  sentAt: number;
  receivedAt: number;
  res: ApiResponse;
}

const retryAfterS = (res: ApiResponse): number => Number(res.headers['retry-after']);

/**
 * Just after the next of the purchase budget's windows opens: they are the clock's seconds
 * (rate-limiter.ts), so a sale and the attempts right behind it fall in one window, not in two.
 */
const windowOpens = (): Promise<void> => sleep(RATE_LIMIT_WINDOW_MS - (Date.now() % RATE_LIMIT_WINDOW_MS) + 20);

describe('a purchase retried before its Retry-After', () => {
  let harness: AppHarness;
  let api: Api;

  beforeAll(async () => {
    // One purchase attempt per user and second: each buyer is refused 429 right after each sale.
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1', PURCHASE_DEADLINE_MS: '1000' });
    api = new Api(injectSender(harness.app));
  });

  afterAll(async () => {
    await harness?.close();
  });

  const ordersOf = async (productId: string, user: string): Promise<number> =>
    (
      await withPg(harness.database.url, (pg) =>
        pg.query<{ n: number }>('SELECT count(*)::int AS n FROM orders WHERE product_id = $1 AND user_id = $2', [
          productId,
          user,
        ]),
      )
    ).rows[0].n;

  async function attempt(productId: string, user: string, log: Attempt[]): Promise<ApiResponse> {
    const sentAt = Date.now();
    const res = await api.purchase(productId, user);
    log.push({ sentAt, receivedAt: Date.now(), res });
    return res;
  }

  it('gives a client that retries without waiting no more units than one that honours Retry-After', async () => {
    const product = await api.createProduct({ stock: 1000, perUserLimit: 1000 });
    await windowOpens();
    const until = Date.now() + RUN_MS;
    const bot: Attempt[] = [];
    const person: Attempt[] = [];
    await Promise.all([
      (async () => {
        while (Date.now() < until) {
          await attempt(product.id, 'bot', bot);
          await sleep(5); // "without waiting": as fast as a script loops
        }
      })(),
      (async () => {
        while (Date.now() < until) {
          const res = await attempt(product.id, 'person', person);
          if (res.status === 429 || res.status === 503) await sleep(retryAfterS(res) * 1000);
        }
      })(),
    ]);

    const units = (log: Attempt[]) => log.filter((a) => a.res.status === 201).length;
    process.stdout.write(
      `early retries: bot ${units(bot)} units in ${bot.length} attempts, person ${units(person)} units in ${person.length} attempts\n`,
    );
    expect(bot.length).toBeGreaterThan(10 * person.length);
    expect(units(person)).toBeGreaterThanOrEqual(3);
    // The bot's first purchase, before its first refusal; nothing after it while it keeps looping.
    expect(units(bot)).toBeLessThanOrEqual(1);

    // Every bot attempt sent before the moment the Retry-After it was last told named was refused
    // 429 RATE_LIMITED, as early; the early refusals kept coming to the end of the run.
    let notBefore = 0;
    let early = 0;
    for (const { sentAt, receivedAt, res } of bot) {
      if (sentAt < notBefore - 100) {
        expectContractError(res, 429, 'RATE_LIMITED');
        early++;
      }
      if (res.status === 429 || res.status === 503)
        notBefore = Math.max(notBefore, receivedAt + retryAfterS(res) * 1000);
    }
    expect(early).toBeGreaterThan(bot.length / 2);
    expect(bot.slice(-10).every((a) => a.res.status === 429 && EARLY.test(String(a.res.body?.message)))).toBe(true);

    // Nothing was done for any refusal: each client's orders are its 201s, no more.
    expect(await ordersOf(product.id, 'bot')).toBe(units(bot));
    expect(await ordersOf(product.id, 'person')).toBe(units(person));
    await expectInvariants(harness.database.url, product.id);
  });

  it('lets a burst of taps already on their way not move the moment: the retry after Retry-After buys', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 5 });
    // Three taps 150 ms apart, none waiting for an answer: one sale, then refusals within 300 ms
    // (started as a window opens: a new window let the second through in about one run in seven).
    await windowOpens();
    const taps: Array<Promise<ApiResponse>> = [];
    for (let i = 0; i < 3; i++) {
      taps.push(api.purchase(product.id, 'tapper'));
      await sleep(150);
    }
    const answers = await Promise.all(taps);
    expect(answers.map((a) => a.status)).toEqual([201, 429, 429]);
    await sleep(Math.max(...answers.slice(1).map(retryAfterS)) * 1000);
    expect((await api.purchase(product.id, 'tapper')).status).toBe(201);
    expect(await ordersOf(product.id, 'tapper')).toBe(2);
  });

  it('refuses a retry sent at once after 503 OVERLOADED with 429, without an order, and sells once Retry-After has passed', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 5 });
    // A stalled transaction holds the product's row: the purchase cannot be answered in time.
    const holder = new Client({ connectionString: harness.database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM products WHERE id = $1 FOR UPDATE', [product.id]);
    let overloaded: ApiResponse;
    try {
      overloaded = await api.purchase(product.id, 'stalled');
      expectContractError(overloaded, 503, 'OVERLOADED');
      const retried = await api.purchase(product.id, 'stalled');
      expectContractError(retried, 429, 'RATE_LIMITED');
      expect(retried.raw).toMatch(EARLY);
      expect(retryAfterS(retried)).toBeGreaterThanOrEqual(1);
      expect(retryAfterS(retried)).toBeLessThanOrEqual(retryAfterS(overloaded));
    } finally {
      await holder.query('COMMIT');
      await holder.end();
    }
    expect(await ordersOf(product.id, 'stalled')).toBe(0);
    await sleep(retryAfterS(overloaded) * 1000);
    expect((await api.purchase(product.id, 'stalled')).status).toBe(201);
    expect(await ordersOf(product.id, 'stalled')).toBe(1);
  });
});
