import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoadTest } from '../../scripts/loadtest';
import { parseHistory, QueueJoinRecord, QueuePollRecord } from '../../scripts/history/format';
import { startApp, AppHarness, TEST_JWT_SECRET, listenOnLoopback } from '../support/app-harness';
import { injectSender, withPg } from '../support/api-client';
import { testOutputDir } from '../support/test-output';
import { WaitingRoomClient } from '../support/waiting-room-client';

jest.setTimeout(180_000);

const STOCK = 50;
const BUYERS = 400;

/** The load test's waiting-room flow against the real app, its report checked against what the test knows itself. */
describe('load test through a waiting room', () => {
  let harness: AppHarness;
  let url: string;
  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '10000', QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000', WAITING_ROOM_TICK_MS: '50' });
    url = await listenOnLoopback(harness.app);
  });
  afterAll(() => harness?.close());

  it('sells every unit to buyers admitted in ticket order, and the report says so truly', async () => {
    const dir = testOutputDir('loadtest-waiting-room');
    const historyFile = join(dir, 'history.jsonl');
    const result = await runLoadTest({
      urls: [url],
      stock: STOCK,
      users: BUYERS,
      connections: 32,
      durationS: 90,
      waitingRoom: true,
      admitPerSecond: 200,
      tokenSecret: TEST_JWT_SECRET,
      reportDir: dir,
      historyFile,
      check: true,
    });
    const w = result.waitingRoom!;

    // Ground truth from Postgres: every unit sold, one order per buyer who was told BOUGHT.
    const orders = await withPg(harness.database.url, (pg) => pg.query<{ user_id: string }>(`SELECT user_id FROM orders WHERE product_id = $1 AND status IN ('PENDING_PAYMENT', 'PAID')`, [result.product.id]));
    expect(orders.rows.length).toBe(STOCK);
    expect(w.finals.BOUGHT).toBe(STOCK);
    expect(w.finals.SOLD_OUT).toBe(BUYERS - STOCK);
    expect(result.purchases).toBe(STOCK);
    expect(result.historyCheck?.rules.filter((r) => !r.ok)).toEqual([]);
    expect(result.ok).toBe(true);

    // The queue seen through the history (every request), recomputed here independently.
    const { ops } = parseHistory(readFileSync(historyFile, 'utf8'));
    const queueOps = ops.filter((op): op is QueueJoinRecord | QueuePollRecord => op.op === 'queueJoin' || op.op === 'queuePoll');
    const byUser = new Map<string, (QueueJoinRecord | QueuePollRecord)[]>();
    for (const op of queueOps) byUser.set(op.userId, [...(byUser.get(op.userId) ?? []), op]);
    expect(byUser.size).toBe(BUYERS);
    const tickets = [...byUser.values()].map((list) => ({
      number: Number(list.find((op) => op.ticketId !== undefined)?.ticketId),
      waitingUntil: Math.max(-Infinity, ...list.filter((op) => op.state === 'WAITING').map((op) => op.invokeMs)),
      admittedBy: Math.min(Infinity, ...list.filter((op) => op.state === 'ADMITTED').map((op) => op.completeMs)),
    }));
    expect(new Set(tickets.map((t) => t.number)).size).toBe(BUYERS);
    let inversions = 0;
    for (const a of tickets) for (const b of tickets) if (a.number < b.number && a.waitingUntil > b.admittedBy) inversions++;
    expect([w.order.compared, w.order.inversions, inversions]).toEqual([BUYERS, 0, 0]);
    const admitted = tickets.filter((t) => Number.isFinite(t.admittedBy));
    expect(w.order.admitted).toBe(admitted.length);
    expect(admitted.length).toBeGreaterThanOrEqual(STOCK);

    // Sold-out reach: per poller, its first SOLD_OUT answer minus the last 201.
    const last201 = Math.max(...ops.filter((op) => op.op === 'purchase' && op.status === 201).map((op) => op.completeMs));
    const reach = [...byUser.values()]
      .map((list) => list.find((op) => op.state === 'SOLD_OUT' || op.code === 'SOLD_OUT'))
      .filter((op) => op !== undefined)
      .map((op) => op.completeMs - last201)
      .sort((a, b) => a - b);
    expect(w.soldOut.lastCreatedAtMs).toBe(last201);
    expect([w.soldOut.pollers, w.soldOut.reachMs.max, w.soldOut.reachMs.min]).toEqual([reach.length, reach[reach.length - 1], reach[0]]);
    const stale = queueOps.filter((op) => op.invokeMs > last201 + 1000 && (op.state === 'WAITING' || op.state === 'ADMITTED'));
    expect([w.soldOut.staleAnswers, stale.length]).toEqual([0, 0]);

    // Polls never came sooner than the server asked.
    for (const list of byUser.values())
      for (let i = 1; i < list.length; i++) {
        const previous = list[i - 1];
        if (list[i].op === 'queuePoll' && previous.pollAfterMs !== undefined) expect(list[i].invokeMs - previous.completeMs).toBeGreaterThanOrEqual(previous.pollAfterMs);
      }

    const html = readFileSync(result.reportPaths!.html, 'utf8');
    expect(html).toContain('<h2>Waiting room</h2>');
    expect(html).toContain('Admission against queue order: 0 inversion(s)');
    expect(html).not.toMatch(/<script|\ssrc=|<link/);
    const json = JSON.parse(readFileSync(result.reportPaths!.json, 'utf8')) as typeof result;
    expect(json.waitingRoom?.order.inversions).toBe(0);
  });

  it('ranks a pre-queue by the HMAC of the published seed', async () => {
    const room = new WaitingRoomClient(injectSender(harness.app));
    const product = await room.createProduct({ stock: 20, saleStartsAt: new Date(Date.now() + 3000).toISOString(), waitingRoom: { admitPerSecond: 100, preQueueS: 60 } });
    const dir = testOutputDir('loadtest-waiting-room-pre');
    const historyFile = join(dir, 'history.jsonl');
    const result = await runLoadTest({ urls: [url], productId: product.id, users: 80, connections: 16, durationS: 60, waitingRoom: true, tokenSecret: TEST_JWT_SECRET, reportDir: null, historyFile, check: true });
    const orders = await withPg(harness.database.url, (pg) => pg.query(`SELECT 1 FROM orders WHERE product_id = $1 AND status IN ('PENDING_PAYMENT', 'PAID')`, [product.id]));
    expect(orders.rows.length).toBe(20);
    expect(result.ok).toBe(true);

    // Every buyer joined before the start; the test ranks them itself from the seed the API publishes.
    const seed = Buffer.from((await room.summary(product.id)).seed!, 'hex');
    const { ops } = parseHistory(readFileSync(historyFile, 'utf8'));
    const queueOps = ops.filter((op): op is QueueJoinRecord | QueuePollRecord => op.op === 'queueJoin' || op.op === 'queuePoll');
    const ids = [...new Set(queueOps.map((op) => op.ticketId).filter((id) => id !== undefined))];
    const rank = (id: string) => createHmac('sha256', seed).update(id, 'utf8').digest('hex');
    const tickets = ids.map((id) => {
      const mine = queueOps.filter((op) => op.ticketId === id);
      return {
        key: rank(id),
        waitingUntil: Math.max(-Infinity, ...mine.filter((op) => op.state === 'WAITING').map((op) => op.invokeMs)),
        admittedBy: Math.min(Infinity, ...mine.filter((op) => op.state === 'ADMITTED').map((op) => op.completeMs)),
      };
    });
    let inversions = 0;
    for (const a of tickets) for (const b of tickets) if (a.key < b.key && a.waitingUntil > b.admittedBy) inversions++;
    expect(inversions).toBe(0);
    expect(result.waitingRoom?.order).toMatchObject({ compared: 80, preQueue: 80, inversions: 0 });
    expect(result.waitingRoom?.order.admitted).toBe(tickets.filter((t) => Number.isFinite(t.admittedBy)).length);
  });
});
