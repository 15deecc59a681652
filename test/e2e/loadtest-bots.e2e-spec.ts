import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { runLoadTest } from '../../scripts/loadtest';
import type { PopulationsReport } from '../../scripts/loadtest/populations';
import { startApp, AppHarness, TEST_JWT_SECRET, listenOnLoopback } from '../support/app-harness';
import { injectSender, withPg } from '../support/api-client';
import { testOutputDir } from '../support/test-output';
import { WaitingRoomClient } from '../support/waiting-room-client';

jest.setTimeout(180_000);

/** The token's `sub`, read without verifying (the app verified it). */
function subject(req: IncomingMessage): string | undefined {
  const token = req.headers.authorization?.replace(/^Bearer /, '');
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: string }).sub;
}

/**
 * The load test's two populations against the real app: what it reports from its own records,
 * and (seen by the app's own HTTP server) that each person and each bot address really is a
 * distinct client address.
 */
describe('load test with a bot operator beside the people', () => {
  let harness: AppHarness;
  let url: string;
  /** user id → the remote addresses the app's server saw its requests come from. */
  const seen = new Map<string, Set<string>>();
  beforeAll(async () => {
    harness = await startApp({ QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000', WAITING_ROOM_TICK_MS: '50' });
    harness.app.getHttpServer().on('request', (req: IncomingMessage) => {
      const sub = subject(req);
      if (!sub) return;
      const from = seen.get(sub) ?? new Set<string>();
      from.add(req.socket.remoteAddress ?? '?');
      seen.set(sub, from);
    });
    url = await listenOnLoopback(harness.app);
  });
  afterAll(() => harness?.close());

  it('reports what each population won from its own 201s, each person and bot address from its own address', async () => {
    const dir = testOutputDir('loadtest-bots');
    const result = await runLoadTest({
      urls: [url],
      stock: 20,
      users: 60,
      bots: 20,
      botAddresses: 2,
      preQueueS: 2,
      reactionMs: { minMs: 200, maxMs: 400 },
      connections: 16,
      durationS: 30,
      waitingRoom: true,
      admitPerSecond: 100,
      tokenSecret: TEST_JWT_SECRET,
      reportDir: dir,
      check: true,
    });
    expect(result.historyCheck?.rules.filter((r) => !r.ok)).toEqual([]);
    expect(result.ok).toBe(true);
    const p = result.populations as PopulationsReport;
    expect(p.people).toMatchObject({ accounts: 60, addresses: 60 });
    expect(p.bots).toMatchObject({ accounts: 20, addresses: 2 });
    // Units from the run's own records: every unit sold, split between the two populations.
    expect(p.people.units + p.bots.units).toBe(20);
    expect(result.purchases).toBe(20);
    const orders = await withPg(harness.database.url, (pg) =>
      pg.query<{ user_id: string }>(
        `SELECT user_id FROM orders WHERE product_id = $1 AND status IN ('PENDING_PAYMENT', 'PAID')`,
        [result.product.id],
      ),
    );
    const botOrders = orders.rows.filter((o) => o.user_id.startsWith(`lt-${result.runId}-bot`)).length;
    expect([p.bots.units, p.people.units]).toEqual([botOrders, orders.rows.length - botOrders]);
    expect(p.botShare).toBeCloseTo(botOrders / 20, 10);
    expect(p.people.unitsPerAccount).toBeCloseTo(p.people.units / 60, 10);
    expect(p.people.joinToAdmissionP95Ms).toBeGreaterThan(0);
    // Bots polled at the per-ticket limit, people never sooner than told.
    expect(p.bots.polls).toBeGreaterThan(0);
    expect(result.waitingRoom?.earlyPolls).toBe(0);

    // The app's own server saw each person from one address of its own, and the bots from two.
    const people = Array.from({ length: 60 }, (_, n) => seen.get(`lt-${result.runId}-${n}`));
    const bots = Array.from({ length: 20 }, (_, k) => seen.get(`lt-${result.runId}-bot${k}`));
    expect(people.every((from) => from?.size === 1)).toBe(true);
    expect(bots.every((from) => from?.size === 1)).toBe(true);
    const personAddresses = people.map((from) => [...from!][0]);
    const botAddresses = bots.map((from) => [...from!][0]);
    expect(new Set(personAddresses).size).toBe(60);
    expect(personAddresses.every((a) => /^127\.0\.[1-9]\d*\.\d+$/.test(a))).toBe(true);
    expect([...new Set(botAddresses)].sort()).toEqual(['127.1.0.1', '127.1.0.2']);
    expect(botAddresses.filter((a) => a === '127.1.0.1')).toHaveLength(10);

    const json = JSON.parse(readFileSync(result.reportPaths!.json, 'utf8')) as { populations: Record<string, unknown> };
    expect(json.populations).toMatchObject({
      people: {
        accounts: 60,
        addresses: 60,
        units: p.people.units,
        unitsPerAccount: p.people.unitsPerAccount,
        joinToAdmissionP95Ms: p.people.joinToAdmissionP95Ms,
      },
      bots: { accounts: 20, addresses: 2, units: p.bots.units, unitsPerAccount: p.bots.unitsPerAccount },
      botShare: p.botShare,
    });
    const html = readFileSync(result.reportPaths!.html, 'utf8');
    expect(html).toContain('<h2>People and bots</h2>');
    expect(html).not.toMatch(/<script|\ssrc=|<link/);
  });

  it('with joinsPerAddress 1 and join work, two bot addresses hold at most two live tickets, and every account solved first', async () => {
    // The door's server side (waitingRoom.joinsPerAddress, joinWork): skipped on an app without it.
    const room = new WaitingRoomClient(injectSender(harness.app));
    const probe = await room
      .createProduct({ stock: 1, waitingRoom: { joinsPerAddress: 1, joinWork: { squarings: 1000 } } as object })
      .catch(() => undefined);
    if ((probe?.waitingRoom as { joinsPerAddress?: number } | undefined)?.joinsPerAddress !== 1) {
      console.warn('the app has no waitingRoom.joinsPerAddress: the door check is skipped');
      return;
    }
    // The bots' joins and purchases as the app's own server saw them: when each arrived and was answered.
    const events: Array<{
      sub: string;
      from: string;
      path: string;
      arrivedMs: number;
      doneMs: number;
      status: number;
    }> = [];
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      const sub = subject(req);
      if (!sub?.includes('-bot') || req.method !== 'POST') return;
      const arrivedMs = Date.now();
      const from = req.socket.remoteAddress ?? '?';
      const path = req.url ?? '';
      res.on('finish', () => events.push({ sub, from, path, arrivedMs, doneMs: Date.now(), status: res.statusCode }));
    };
    const server = harness.app.getHttpServer();
    server.on('request', watch);
    const result = await runLoadTest({
      urls: [url],
      stock: 5,
      users: 10,
      bots: 10,
      botAddresses: 2,
      preQueueS: 2,
      reactionMs: { minMs: 200, maxMs: 400 },
      joinsPerAddress: 1,
      joinWork: 1000,
      connections: 8,
      durationS: 30,
      waitingRoom: true,
      admitPerSecond: 100,
      tokenSecret: TEST_JWT_SECRET,
      reportDir: null,
      check: true,
    }).finally(() => server.off('request', watch));
    expect(result.historyCheck?.rules.filter((r) => !r.ok)).toEqual([]);
    expect(result.ok).toBe(true);
    const p = result.populations as PopulationsReport;
    expect([p.joinsPerAddress, p.joinWork]).toEqual([1, { squarings: 1000 }]);
    // Refused joins were sent again after their Retry-After, until a ticket or the sell-out: none
    // was given up on, and each bot won at most what its own ticket allowed.
    expect(p.bots.joinsRateLimited).toBeGreaterThan(0);
    expect(p.bots.joinsRefused).toEqual({});
    expect(p.bots.tickets).toBeGreaterThanOrEqual(2);
    expect(p.bots.units).toBeLessThanOrEqual(p.bots.tickets);
    // At most one live ticket per bot address at any moment, so at most two live bot tickets: an
    // address's next ticket was answered only after its previous one's holder had sent the
    // purchase that bought with it.
    const product = `/products/${encodeURIComponent(result.product.id)}/`;
    const mine = events.filter((e) => e.path.startsWith(product));
    const tickets = mine.filter((e) => e.path.endsWith('/queue') && e.status === 200);
    const bought = new Map(
      mine.filter((e) => e.path.endsWith('/purchase') && e.status === 201).map((e) => [e.sub, e.arrivedMs]),
    );
    expect(tickets).toHaveLength(p.bots.tickets);
    for (const address of ['127.1.0.1', '127.1.0.2']) {
      const held = tickets.filter((e) => e.from === address).sort((a, b) => a.doneMs - b.doneMs);
      expect(held.length).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < held.length; i++) expect(bought.get(held[i - 1].sub)).toBeLessThanOrEqual(held[i].doneMs);
    }
    // Every person, from an address of its own, got a ticket; everyone solved a challenge before joining.
    expect(p.people).toMatchObject({ tickets: 10, joinsRefused: {}, joinsRateLimited: 0 });
    expect(p.people.solve.solves).toBe(10);
    // A refused join's solution is sent again (the API spends it only with a ticket): one solve per account.
    expect(p.bots.solve.solves).toBe(10);
    expect(p.people.solve.cpuS).toBeGreaterThan(0);
    expect(p.people.units + p.bots.units).toBe(5);
  });
});
