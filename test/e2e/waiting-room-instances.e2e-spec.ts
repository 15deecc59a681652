import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createApp } from '../../apps/api/src/bootstrap';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { expectContractError, injectSender } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { eventually, TicketStatus, WaitingRoomClient } from '../support/waiting-room-client';

/** A second instance of the app in this process, sharing the first one's Postgres and Redis. */
async function secondInstance(env: Record<string, string>): Promise<NestFastifyApplication> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const app = await createApp(loadConfig(process.env));
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    return app;
  } finally {
    process.env = saved;
  }
}

describe('waiting room across instances', () => {
  let harness: AppHarness;
  let other: NestFastifyApplication;
  let rooms: WaitingRoomClient[];
  let db: Client;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000', QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000', WAITING_ROOM_TICK_MS: '50' });
    other = await secondInstance(harness.env);
    rooms = [new WaitingRoomClient(injectSender(harness.app)), new WaitingRoomClient(injectSender(other))];
    db = new Client({ connectionString: harness.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await other.close();
    await harness.close();
  });

  it('admits in one global arrival order while two instances take joins, polls and purchases', async () => {
    const [a, b] = rooms;
    // A slow pace, so that pacing shows in the admission times whatever the joins cost.
    const rate = 2;
    const createdBefore = Date.now();
    const product = await a.createProduct({ stock: 6, waitingRoom: { admitPerSecond: rate } });
    const users = Array.from({ length: 16 }, (_, i) => `two-${i}`);
    const tickets: TicketStatus[] = [];
    for (const [i, user] of users.entries()) tickets.push(await rooms[i % 2].joined(product.id, user));
    // Every instance may run the admission step; admissions must still be a prefix of arrival order.
    // Each round reads latest-first, so a ticket admitted before one ahead of it shows up in an earlier round.
    const roundAdmitted = new Map<number, number>();
    const admittedAtMs = new Map<number, number>();
    const outcomes = new Map<number, number | string>();
    for (let round = 0; outcomes.size < users.length; round++) {
      const stock = (await db.query('SELECT stock FROM products WHERE id = $1', [product.id])).rows[0].stock;
      expect((await b.summary(product.id)).admitted).toBeLessThanOrEqual(stock);
      for (let i = users.length - 1; i >= 0; i--) {
        if (outcomes.has(i)) continue;
        const status = await rooms[(i + 1) % 2].status(product.id, tickets[i].ticket);
        if (status.state === 'SOLD_OUT') outcomes.set(i, 'SOLD_OUT');
        if (status.state !== 'ADMITTED') continue;
        roundAdmitted.set(i, round);
        // The server states when the admission lapses: admission time + TTL.
        admittedAtMs.set(i, Date.parse(status.admissionExpiresAt!) - product.waitingRoom!.admissionTtlS * 1000);
        outcomes.set(i, (await rooms[i % 2].purchase(product.id, users[i], status.admission)).status);
      }
    }
    expect([...roundAdmitted.keys()].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5]);
    for (let i = 1; i < 6; i++) expect(roundAdmitted.get(i)!).toBeGreaterThanOrEqual(roundAdmitted.get(i - 1)!);
    // Paced, not all at once: the bucket starts empty when the leader first sees the product (after
    // createdBefore) and fills at `rate`, so the k-th admission comes k/rate seconds after at the earliest.
    for (let i = 0; i < 6; i++) expect(admittedAtMs.get(i)!).toBeGreaterThanOrEqual(createdBefore + ((i + 1) * 1000) / rate);
    for (let i = 0; i < 6; i++) expect(outcomes.get(i)).toBe(201);
    for (let i = 6; i < users.length; i++) expect(outcomes.get(i)).toBe('SOLD_OUT');
    const sold = await db.query(`SELECT user_id FROM orders WHERE product_id = $1 ORDER BY id`, [product.id]);
    expect(sold.rows.map((r) => r.user_id).sort()).toEqual(users.slice(0, 6).sort());
  }, 30_000);

  it('answers a ticket taken on one instance from the other, with the same state and place', async () => {
    const [a, b] = rooms;
    const product = await a.createProduct({ stock: 1, waitingRoom: { admitPerSecond: 1, admissionTtlS: 600 } });
    await a.joined(product.id, 'front');
    const ticket = await a.joined(product.id, 'behind');
    const here = await a.status(product.id, ticket.ticket);
    const there = await b.status(product.id, ticket.ticket);
    expect({ ...there, pollAfterMs: 0 }).toEqual({ ...here, pollAfterMs: 0 });
    expect((await b.joined(product.id, 'behind')).ticket).toBe(ticket.ticket);
  });

  it('answers 503 DEPENDENCY_UNAVAILABLE on queue routes and waiting-room purchases while Redis is down, and recovers', async () => {
    const [a] = rooms;
    const product = await a.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 50 } });
    const plain = await a.createProduct({ stock: 5 });
    const admitted = await a.until(product.id, (await a.joined(product.id, 'outage')).ticket, ['ADMITTED']);
    expect((await a.purchase(plain.id, 'outage-plain')).status).toBe(201); // the process now knows both products' terms
    await harness.redis.stop();
    try {
      expectContractError(await a.join(product.id, 'outage-2'), 503, 'DEPENDENCY_UNAVAILABLE');
      expectContractError(await a.poll(product.id, admitted.ticket), 503, 'DEPENDENCY_UNAVAILABLE');
      expectContractError(await a.send({ method: 'GET', url: `/products/${product.id}/queue` }), 503, 'DEPENDENCY_UNAVAILABLE');
      const refused = await a.purchase(product.id, 'outage', admitted.admission);
      expectContractError(refused, 503, 'DEPENDENCY_UNAVAILABLE');
      expect(refused.headers['retry-after']).toBeDefined();
      // Products without a waiting room sell on (LOCK_FALLBACK=db).
      expect((await a.purchase(plain.id, 'outage-plain-2')).status).toBe(201);
    } finally {
      await harness.redis.restart();
    }
    const stock = (await db.query('SELECT stock FROM products WHERE id = $1', [product.id])).rows[0].stock;
    expect(stock).toBe(5);
    // The queue lived in that Redis: a fresh join works again once the client has reconnected.
    await eventually(async () => (await a.join(product.id, 'after-outage')).status === 200, 10_000, 'a join after the outage');
    const again = await a.until(product.id, (await a.joined(product.id, 'after-outage')).ticket, ['ADMITTED'], 15_000);
    // The new queue reuses ticket numbers: the old ticket and admission must not pass for the new ones.
    expect(again.ticketId).toBe(admitted.ticketId);
    expect((await a.status(product.id, admitted.ticket)).state).toBe('EXPIRED');
    expectContractError(await a.purchase(product.id, 'outage', admitted.admission), 403, 'NOT_ADMITTED');
    expect((await a.purchase(product.id, 'after-outage', again.admission)).status).toBe(201);
  }, 30_000);
});
