import { AppHarness, startApp } from '../support/app-harness';
import { pinRateWindow } from '../support/rate-clock';
import { adminAuth, auth } from '../support/tokens';

const BUDGET = 4;

/**
 * IPV6_CLIENT_PREFIX: behind a trusted balancer (TRUST_PROXY=loopback, the client address from
 * X-Forwarded-For), every per-address budget and cap counts an IPv6 client by its /64, so
 * addresses rotated within one home line share one budget while another line keeps its own; an
 * IPv4-mapped address counts as the IPv4 address.
 */
describe('per-address budgets and caps count an IPv6 client by its prefix', () => {
  let harness: AppHarness;

  beforeAll(async () => {
    harness = await startApp({
      TRUST_PROXY: 'loopback',
      AUTH_FAILURES_PER_SECOND: String(BUDGET),
      PUBLIC_READS_PER_SECOND_PER_ADDRESS: String(BUDGET),
      QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: String(BUDGET),
      RATE_LIMIT_PER_SECOND: '1000',
    });
  });
  afterAll(() => harness.close());

  /** One request as the balancer forwards it for `client`. */
  const from = (
    client: string,
    url: string,
    options: { method?: 'GET' | 'POST'; headers?: Record<string, string> } = {},
  ) =>
    harness.app.inject({
      method: options.method ?? 'GET',
      url,
      remoteAddress: '127.0.0.1',
      headers: { ...options.headers, 'x-forwarded-for': client },
    });

  /** The statuses of `count` requests, the i-th from client(i), all counted in one rate window. */
  async function burst(count: number, client: (i: number) => string, url: string): Promise<number[]> {
    const unpin = pinRateWindow(harness.app);
    try {
      const answers = await Promise.all(Array.from({ length: count }, (_, i) => from(client(i), url)));
      return answers.map((a) => a.statusCode);
    } finally {
      unpin();
    }
  }
  const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

  async function product(waitingRoom?: Record<string, unknown>): Promise<string> {
    const created = await harness.app.inject({
      method: 'POST',
      url: '/admin/products',
      headers: adminAuth(),
      payload: {
        sku: `V6-${Date.now()}-${Math.random()}`,
        name: 'Six',
        priceCents: 100,
        stock: 50,
        ...(waitingRoom ? { waitingRoom } : {}),
      },
    });
    expect(created.statusCode).toBe(201);
    return created.json<{ id: string }>().id;
  }

  it('gives requests without a token one failure budget per /64, however its addresses are written', async () => {
    const spellings = (i: number) =>
      [`2001:db8:aa:1::${i + 1}`, `2001:DB8:AA:1:0:0:ffff:${i + 1}`, `2001:0db8:00aa:0001:abcd::${i + 1}`][i % 3];
    const oneLine = await burst(3 * BUDGET, spellings, '/orders');
    expect(count(oneLine, 401)).toBe(BUDGET);
    expect(count(oneLine, 429)).toBe(2 * BUDGET);
    // The next /64 over is another line with a budget of its own.
    const neighbour = await burst(BUDGET, (i) => `2001:db8:aa:2::${i + 1}`, '/orders');
    expect(neighbour).toEqual(Array(BUDGET).fill(401));
  });

  it('gives public product reads and the queue summary one budget per /64', async () => {
    const id = await product({});
    for (const url of [`/products/${id}`, `/products/${id}/queue`]) {
      const line = await burst(3 * BUDGET, (i) => `2001:db8:bb:${url.length}:${i + 1}::9`, url);
      expect(count(line, 200)).toBe(BUDGET);
      expect(count(line, 429)).toBe(2 * BUDGET);
      const other = await burst(BUDGET, (i) => `2001:db8:bb:ff::${i + 1}`, url);
      expect(other).toEqual(Array(BUDGET).fill(200));
    }
  });

  it('counts an IPv4-mapped address as the IPv4 address it carries', async () => {
    const statuses = await burst(3 * BUDGET, (i) => (i % 2 ? '198.51.100.23' : '::ffff:198.51.100.23'), '/orders');
    expect(count(statuses, 401)).toBe(BUDGET);
    expect(count(statuses, 429)).toBe(2 * BUDGET);
  });

  it("caps a sale's live tickets per /64, not per address: rotating addresses buys no tickets past joinsPerAddress", async () => {
    const id = await product({ joinsPerAddress: 2 });
    const join = (client: string, user: string) =>
      from(client, `/products/${id}/queue`, { method: 'POST', headers: auth(user) });
    expect((await join('2001:db8:cc:1::1', 'six-a')).statusCode).toBe(200);
    expect((await join('2001:db8:cc:1::2', 'six-b')).statusCode).toBe(200);
    for (const [i, client] of [
      '2001:db8:cc:1::3',
      '2001:db8:cc:1:ffff:ffff:ffff:ffff',
      '2001:DB8:CC:1:1::1',
    ].entries()) {
      const over = await join(client, `six-over-${i}`);
      expect(over.statusCode).toBe(429);
      expect(over.json()).toMatchObject({ code: 'RATE_LIMITED' });
    }
    expect((await join('2001:db8:cc:2::1', 'six-c')).statusCode).toBe(200);
    // IPv4-mapped and plain IPv4: one address, one cap.
    expect((await join('::ffff:203.0.113.40', 'four-a')).statusCode).toBe(200);
    expect((await join('203.0.113.40', 'four-b')).statusCode).toBe(200);
    expect((await join('::ffff:203.0.113.40', 'four-c')).statusCode).toBe(429);
  });
});

describe('IPV6_CLIENT_PREFIX=48', () => {
  let harness: AppHarness;
  beforeAll(async () => {
    harness = await startApp({
      TRUST_PROXY: 'loopback',
      AUTH_FAILURES_PER_SECOND: String(BUDGET),
      IPV6_CLIENT_PREFIX: '48',
    });
  });
  afterAll(() => harness.close());

  it('counts a whole /48 as one client when told to: its /64s share one budget', async () => {
    const unpin = pinRateWindow(harness.app);
    try {
      const answers = await Promise.all(
        Array.from({ length: 3 * BUDGET }, (_, i) =>
          harness.app.inject({
            method: 'GET',
            url: '/orders',
            remoteAddress: '127.0.0.1',
            headers: { 'x-forwarded-for': `2001:db8:ee:${i + 1}::1` },
          }),
        ),
      );
      expect(answers.filter((a) => a.statusCode === 429)).toHaveLength(2 * BUDGET);
      const otherSite = await harness.app.inject({
        method: 'GET',
        url: '/orders',
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '2001:db8:ef:1::1' },
      });
      expect(otherSite.statusCode).toBe(401);
    } finally {
      unpin();
    }
  });
});
