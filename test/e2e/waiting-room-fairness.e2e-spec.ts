import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { injectSender, sleep } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { runOrderScript, seededOrder } from '../support/queue-order';
import { eventually, TicketStatus, WaitingRoomClient } from '../support/waiting-room-client';

/**
 * Polls every ticket, latest in `order` first: a ticket admitted out of order would then be seen
 * ADMITTED while one before it is still seen WAITING, never the reverse.
 */
async function sample(room: WaitingRoomClient, productId: string, order: TicketStatus[]): Promise<TicketStatus[]> {
  const seen: TicketStatus[] = [];
  for (const ticket of [...order].reverse()) seen.unshift(await room.status(productId, ticket.ticket));
  return seen;
}

describe('waiting room fairness', () => {
  let harness: AppHarness;
  let room: WaitingRoomClient;
  let db: Client;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000', QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000', WAITING_ROOM_TICK_MS: '50' });
    room = new WaitingRoomClient(injectSender(harness.app));
    db = new Client({ connectionString: harness.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await harness.close();
  });

  const stockInDatabase = async (productId: string): Promise<number> => (await db.query('SELECT stock FROM products WHERE id = $1', [productId])).rows[0].stock;

  it('admits the pre-queue in the order recomputed from the published seed, then later tickets in arrival order', async () => {
    const startsAt = Date.now() + 2500;
    const product = await room.createProduct({ stock: 100, saleStartsAt: new Date(startsAt).toISOString(), waitingRoom: { admitPerSecond: 8, preQueueS: 600 } });
    const before = await room.summary(product.id);
    expect(before.seed).toBeNull();
    expect(before.seedCommitment).toMatch(/^[0-9a-f]{64}$/);
    const preQueue = await Promise.all(Array.from({ length: 16 }, (_, i) => room.joined(product.id, `pre-${i}`)));
    await sleep(startsAt - Date.now() + 50);
    const later: TicketStatus[] = [];
    for (let i = 0; i < 4; i++) later.push(await room.joined(product.id, `later-${i}`));
    const { seed, seedCommitment } = await room.summary(product.id);
    expect(createHash('sha256').update(Buffer.from(seed!, 'hex')).digest('hex')).toBe(seedCommitment);
    expect(seedCommitment).toBe(before.seedCommitment);
    const byId = new Map([...preQueue, ...later].map((t) => [t.ticketId, t]));
    // The order recomputed by the independent script (scripts/queue-order) from the published seed.
    const expected = [...(await seededOrder(seed!, seedCommitment!, preQueue.map((t) => t.ticketId))), ...later.map((t) => t.ticketId)].map((id) => byId.get(id)!);

    const sizes = new Set<number>();
    for (;;) {
      const seen = await sample(room, product.id, expected);
      const admitted = seen.filter((s) => s.state === 'ADMITTED').length;
      sizes.add(admitted);
      expect(seen.map((s) => s.state)).toEqual(expected.map((_, i) => (i < admitted ? 'ADMITTED' : 'WAITING')));
      // Waiting tickets' positions rise along the same order (each was read after those behind it).
      const positions = seen.slice(admitted).map((s) => s.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(new Set(positions).size).toBe(positions.length);
      if (admitted === expected.length) break;
      await sleep(40);
    }
    expect(sizes.size).toBeGreaterThan(5); // admitted a few at a time, at the pace asked
    // The script's own verdict on the admission order seen, and its refusals of a swapped order and of another seed.
    const admittedPreQueue = expected.slice(0, preQueue.length).map((t) => t.ticketId);
    expect(await runOrderScript(seed!, seedCommitment!, admittedPreQueue, true)).toMatch(/^PASS: 16 tickets admitted in the seeded order/);
    const swapped = [admittedPreQueue[1], admittedPreQueue[0], ...admittedPreQueue.slice(2)];
    await expect(runOrderScript(seed!, seedCommitment!, swapped, true)).rejects.toThrow(/FAIL: admission 1 went to ticket/);
    await expect(runOrderScript('00'.repeat(32), seedCommitment!, admittedPreQueue)).rejects.toThrow(/FAIL: SHA-256 of the seed is/);
  }, 20_000);

  it('never lets outstanding admissions exceed the stock, and gives an expired admission\'s place to the next ticket', async () => {
    const product = await room.createProduct({ stock: 3, waitingRoom: { admitPerSecond: 100, admissionTtlS: 1 } });
    const tickets: TicketStatus[] = [];
    for (let i = 0; i < 6; i++) tickets.push(await room.joined(product.id, `ttl-${i}`));
    let highest = 0;
    const until = Date.now() + 800;
    while (Date.now() < until) {
      const stock = await stockInDatabase(product.id);
      const { admitted } = await room.summary(product.id);
      expect(admitted).toBeLessThanOrEqual(stock);
      highest = Math.max(highest, admitted);
      await sleep(20);
    }
    expect(highest).toBe(3);
    expect((await room.status(product.id, tickets[3].ticket)).state).toBe('WAITING');
    await room.until(product.id, tickets[0].ticket, ['EXPIRED'], 3000);
    expect((await room.purchase(product.id, 'ttl-0', (await room.status(product.id, tickets[0].ticket)).admission)).status).toBe(403);
    const next = await room.until(product.id, tickets[3].ticket, ['ADMITTED'], 8000);
    expect((await room.purchase(product.id, 'ttl-3', next.admission)).status).toBe(201);
  }, 20_000);

  it('admits no more holders than the units left could serve when each may buy perUserLimit units', async () => {
    const product = await room.createProduct({ stock: 3, perUserLimit: 2, waitingRoom: { admitPerSecond: 100 } });
    const tickets: TicketStatus[] = [];
    for (let i = 0; i < 5; i++) tickets.push(await room.joined(product.id, `limit-${i}`));
    const first = await room.until(product.id, tickets[0].ticket, ['ADMITTED']);
    const second = await room.until(product.id, tickets[1].ticket, ['ADMITTED']);
    await sleep(400);
    // Three units, two each at most: two holders; a third could find nothing left.
    expect((await room.summary(product.id)).admitted).toBe(2);
    expect((await room.status(product.id, tickets[2].ticket)).state).toBe('WAITING');
    expect((await room.purchase(product.id, 'limit-0', first.admission, 2)).status).toBe(201);
    await sleep(400);
    expect((await room.summary(product.id)).admitted).toBeLessThanOrEqual(await stockInDatabase(product.id));
    expect((await room.status(product.id, tickets[2].ticket)).state).toBe('WAITING');
    expect((await room.purchase(product.id, 'limit-1', second.admission, 1)).status).toBe(201);
    await room.until(product.id, tickets[2].ticket, ['SOLD_OUT'], 1000);
  }, 20_000);

  it('admits no more buyers than units when each buys as soon as admitted', async () => {
    const product = await room.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 200 } });
    const users = Array.from({ length: 12 }, (_, i) => `race-${i}`);
    const tickets = await Promise.all(users.map((user) => room.joined(product.id, user)));
    let sampling = true;
    const sampler = (async () => {
      let samples = 0;
      while (sampling) {
        const stock = await stockInDatabase(product.id);
        const { admitted } = await room.summary(product.id);
        expect(admitted).toBeLessThanOrEqual(stock);
        samples++;
        await sleep(5);
      }
      return samples;
    })();
    const outcomes = await Promise.all(
      tickets.map(async (ticket, i) => {
        const status = await room.until(product.id, ticket.ticket, ['ADMITTED', 'SOLD_OUT'], 10_000);
        if (status.state === 'SOLD_OUT') return 'SOLD_OUT';
        return (await room.purchase(product.id, users[i], status.admission)).status;
      }),
    );
    sampling = false;
    expect(await sampler).toBeGreaterThan(5);
    expect(outcomes.filter((o) => o === 201)).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'SOLD_OUT')).toHaveLength(7);
    await eventually(async () => (await room.summary(product.id)).soldOut, 2000, 'sold out');
  }, 20_000);
});
