import { randomUUID } from 'node:crypto';
import type { ApiProcess } from '../../scripts/infra/api-process';
import { sleep, withPg } from '../support/api-client';
import { InstanceClient } from '../support/queue-sale-http';
import { RedisServerProcess } from '../support/redis-server';
import { startApis } from '../support/scale-sale';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { adminToken, token } from '../support/tokens';

jest.setTimeout(180_000);

const STOCK = 60;
const BUYERS = 200;
/** Admissions held, unused, when the instance is killed. */
const HELD_BEFORE_KILL = 30;

interface Buyer {
  user: string;
  ticket: string;
  admission?: string;
  admissionExpiresAt?: number;
  /** Whether the admission was seen before the kill. */
  admittedBeforeKill?: boolean;
  purchaseStatus?: number;
  final?: string;
}

/**
 * A waiting room's sale across 2 instances, one SIGKILLed mid-queue while buyers hold admissions
 * they have not used yet: each of them still buys on the other instance, and the queue goes on
 * admitting in arrival order there (the admission step's job lock passes over) until sold out.
 */
describe('chaos 15: an API instance SIGKILLed while its waiting room has buyers queued and admitted', () => {
  let db: TestDatabase;
  let redis: RedisServerProcess;
  let apis: ApiProcess[] = [];
  let clients: InstanceClient[] = [];

  beforeAll(async () => {
    [db, redis] = await Promise.all([createTestDatabase(), RedisServerProcess.start()]);
    apis = await startApis(2, { DATABASE_URL: db.url, REDIS_URL: redis.url, WAITING_ROOM_TICK_MS: '100' });
    clients = apis.map((api) => new InstanceClient(api.url, 8));
  });
  afterAll(async () => {
    clients.forEach((client) => client.close());
    await Promise.all(apis.map((api) => api.stop()));
    await redis?.stop();
    await db?.drop();
  });

  it('keeps every admission given before the kill, and sells the rest in arrival order', async () => {
    const created = await clients[1].send<{ id: string }>('POST', '/admin/products', { authorization: `Bearer ${adminToken()}` }, {
      sku: `S15-${randomUUID().slice(0, 8)}`, name: 'Queued through a crash', priceCents: 100, stock: STOCK, perUserLimit: 1,
      waitingRoom: { admitPerSecond: 20, admissionTtlS: 120 },
    });
    expect(created.status).toBe(201);
    const queuePath = `/products/${created.body.id}/queue`;
    // One join at a time, alternating instances: arrival order is the order of this loop.
    const buyers: Buyer[] = [];
    for (let i = 0; i < BUYERS; i++) {
      const user = `s15-buyer-${i}`;
      const joined = await clients[i % 2].send<{ ticket: string }>('POST', queuePath, { authorization: `Bearer ${token(user)}` });
      expect(joined.status).toBe(200);
      buyers.push({ user, ticket: joined.body.ticket });
    }
    let alive = clients;
    const unexpected: string[] = [];
    const pollAll = async (buyNow: boolean) => {
      for (const [i, buyer] of buyers.entries()) {
        if (buyer.final || (buyer.admission && !buyNow)) continue;
        const answer = await alive[i % alive.length].send<{ state: string; admission?: string; admissionExpiresAt?: string }>('GET', `${queuePath}/${encodeURIComponent(buyer.ticket)}`);
        if (answer.status !== 200) {
          if (answer.status !== 503) unexpected.push(`poll: ${answer.status} ${JSON.stringify(answer.body)}`);
          continue;
        }
        if (answer.body.state === 'ADMITTED' && !buyer.admission) {
          buyer.admission = answer.body.admission;
          buyer.admissionExpiresAt = Date.parse(answer.body.admissionExpiresAt!);
          buyer.admittedBeforeKill = alive.length === 2;
        } else if (answer.body.state !== 'WAITING' && answer.body.state !== 'ADMITTED') buyer.final = answer.body.state;
        if (buyNow && buyer.admission && buyer.purchaseStatus === undefined) await buy(buyer);
      }
    };
    const buy = async (buyer: Buyer) => {
      const headers = { authorization: `Bearer ${token(buyer.user)}`, admission: buyer.admission!, 'idempotency-key': randomUUID() };
      for (;;) {
        const answer = await alive[0].send('POST', `/products/${created.body.id}/purchase`, headers, { quantity: 1 });
        buyer.purchaseStatus = answer.status;
        if (answer.status !== 503 || Date.now() > buyer.admissionExpiresAt!) break;
        await sleep((answer.retryAfterS ?? 1) * 1000);
      }
      if (buyer.purchaseStatus === 201) buyer.final = 'BOUGHT';
      else unexpected.push(`purchase of ${buyer.user} with an admission: ${buyer.purchaseStatus}`);
    };

    // Buyers hold their admissions unused until enough are out, then instance 0 dies.
    for (let deadline = Date.now() + 30_000; buyers.filter((b) => b.admission).length < HELD_BEFORE_KILL && Date.now() < deadline; ) await pollAll(false);
    const heldAtKill = buyers.filter((b) => b.admission).length;
    expect(heldAtKill).toBeGreaterThanOrEqual(HELD_BEFORE_KILL);
    await apis[0].stop('SIGKILL');
    alive = [clients[1]];
    for (let deadline = Date.now() + 60_000; buyers.some((b) => !b.final) && Date.now() < deadline; ) await pollAll(true);

    console.log(`chaos 15: ${heldAtKill} admissions held at the kill; ${buyers.filter((b) => b.final === 'BOUGHT').length} bought; unexpected ${unexpected.length}`);
    const heldBefore = buyers.filter((b) => b.admittedBeforeKill);
    expect(heldBefore.map((b) => b.purchaseStatus)).toEqual(heldBefore.map(() => 201));
    expect(unexpected).toEqual([]);
    // Arrival order kept across the crash: the buyers are exactly the first STOCK to join.
    const bought = buyers.flatMap((b, i) => (b.final === 'BOUGHT' ? [i] : []));
    expect(bought).toEqual(Array.from({ length: STOCK }, (_, i) => i));
    expect(buyers.slice(STOCK).map((b) => b.final)).toEqual(buyers.slice(STOCK).map(() => 'SOLD_OUT'));
    const pg = await withPg(db.url, async (client) => ({
      stock: (await client.query('SELECT stock FROM products WHERE id = $1', [created.body.id])).rows[0].stock,
      users: (await client.query(`SELECT user_id FROM orders WHERE product_id = $1 AND status IN ('PENDING_PAYMENT', 'PAID')`, [created.body.id])).rows.map((r) => r.user_id as string),
    }));
    expect(pg.stock).toBe(0);
    expect(pg.users.sort()).toEqual(bought.map((i) => buyers[i].user).sort());
  });
});
