import { randomUUID } from 'node:crypto';
import { HistoryLog } from '../../scripts/history/writer';
import { sleep } from './api-client';
import { InstanceClient, JsonAnswer } from './queue-sale-http';
import { adminToken, token } from './tokens';

/** One simulated buyer, as its own client saw the sale. */
export interface BuyerRecord {
  user: string;
  ticket: string;
  ticketId: string;
  joinedAt: number;
  /** The admission's expiry as the API stated it (admissions of one step share it). */
  admissionExpiresAt?: number;
  boughtAt?: number;
  /** When this buyer sent the poll that first answered SOLD_OUT (its send time: what the API's poll cadence governs). */
  firstSoldOutAskedAt?: number;
  /** When that answer arrived (adds the round trip, which a loaded client stretches). */
  firstSoldOutSeenAt?: number;
  finalState?: string;
}

export interface PollRecord {
  buyer: number;
  sentAt: number;
  state: string;
}

/** A 100 ms sample: outstanding admissions (the API's public figure) against the stock the test derives. */
export interface StockSample {
  sentAt: number;
  admitted: number;
  /** The stock set minus the 201s this client had received when it sent the sample's request. */
  derivedStock: number;
}

export interface QueueSaleRun {
  productId: string;
  saleStartsAt: number;
  lastJoinAnsweredAt: number;
  seedCommitment: string | null;
  seed: string | null;
  buyers: BuyerRecord[];
  polls: PollRecord[];
  samples: StockSample[];
  sold: number;
  lastUnitAt?: number;
  /** Answers no buyer following the contract should get (e.g. 409 SOLD_OUT with an admission). */
  unexpected: string[];
  /** Every purchase as its client saw it, for the history checker (scripts/history). */
  history: HistoryLog;
}

export interface QueueSaleOptions {
  clients: InstanceClient[];
  buyers: number;
  stock: number;
  admitPerSecond: number;
  /** How long before the start the pre-queue's joins are given. */
  joinWindowMs: number;
  /** The sale is abandoned (buyers stop) this long after the start. */
  saleTimeoutMs: number;
}

const JOIN_CONCURRENCY = 64;
const ok = <T>(answer: JsonAnswer<T>, what: string): T => {
  if (answer.status !== 200 && answer.status !== 201)
    throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

/**
 * A sale through a waiting room, every buyer a client of its own: all join in the pre-queue (so
 * the queue's order is the seeded shuffle the test can recompute), then each polls at pollAfterMs
 * and buys once, with its admission, when admitted. A sampler reads the queue's public figures
 * every 100 ms. Records what every client was told; judging is the caller's.
 */
export async function runQueueSale(options: QueueSaleOptions): Promise<QueueSaleRun> {
  const { clients, stock } = options;
  const admin = { authorization: `Bearer ${adminToken()}` };
  const saleStartsAt = Date.now() + options.joinWindowMs;
  const product = ok(
    await clients[0].send<{ id: string }>('POST', '/admin/products', admin, {
      sku: `QUEUE-SALE-${randomUUID().slice(0, 8)}`,
      name: 'Queued sale',
      priceCents: 100,
      stock,
      perUserLimit: 1,
      saleStartsAt: new Date(saleStartsAt).toISOString(),
      waitingRoom: { admitPerSecond: options.admitPerSecond, preQueueS: 3600, admissionTtlS: 120 },
    }),
    'create product',
  );
  const history = new HistoryLog('waiting-room-sale', [
    { productId: product.id, initialStock: stock, perUserLimit: 1 },
  ]);
  const run: QueueSaleRun = {
    productId: product.id,
    saleStartsAt,
    lastJoinAnsweredAt: 0,
    seedCommitment: null,
    seed: null,
    buyers: [],
    polls: [],
    samples: [],
    sold: 0,
    unexpected: [],
    history,
  };
  const queuePath = `/products/${product.id}/queue`;
  run.seedCommitment = ok(
    await clients[0].send<{ seedCommitment: string | null }>('GET', queuePath),
    'summary',
  ).seedCommitment;

  const pollAfter: number[] = [];
  let nextJoin = 0;
  const joiner = async () => {
    for (let i = nextJoin++; i < options.buyers; i = nextJoin++) {
      const user = `queue-buyer-${i}`;
      const answer = await clients[i % clients.length].send<{ ticket: string; ticketId: string; pollAfterMs: number }>(
        'POST',
        queuePath,
        { authorization: `Bearer ${token(user)}` },
      );
      const status = ok(answer, `join ${user}`);
      run.buyers[i] = { user, ticket: status.ticket, ticketId: status.ticketId, joinedAt: Date.now() };
      pollAfter[i] = status.pollAfterMs;
      run.lastJoinAnsweredAt = Math.max(run.lastJoinAnsweredAt, Date.now());
    }
  };
  await Promise.all(Array.from({ length: JOIN_CONCURRENCY }, joiner));

  const deadline = saleStartsAt + options.saleTimeoutMs;
  let finished = 0;
  const sampler = (async () => {
    for (let k = 0; finished < options.buyers && Date.now() < deadline; k++) {
      const derivedStock = stock - run.sold;
      const sentAt = Date.now();
      const answer = await clients[k % clients.length].send<{ admitted: number }>('GET', queuePath);
      if (answer.status === 200) run.samples.push({ sentAt, admitted: answer.body.admitted, derivedStock });
      await sleep(Math.max(0, sentAt + 100 - Date.now()));
    }
  })();
  await Promise.all(run.buyers.map((_, i) => buyer(i, pollAfter[i])));
  await sampler;
  run.seed = ok(await clients[0].send<{ seed: string | null }>('GET', queuePath), 'summary').seed;
  return run;

  async function buyer(i: number, firstWaitMs: number): Promise<void> {
    const record = run.buyers[i];
    const pollPath = `${queuePath}/${encodeURIComponent(record.ticket)}`;
    await sleep(firstWaitMs);
    for (let k = 0; Date.now() < deadline; k++) {
      const client = clients[(i + k) % clients.length];
      const sentAt = Date.now();
      const answer = await client.send<{
        state: string;
        pollAfterMs: number;
        admission?: string;
        admissionExpiresAt?: string;
      }>('GET', pollPath);
      if (answer.status !== 200) {
        if (answer.status !== 503)
          run.unexpected.push(`poll ${record.user}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
        await sleep((answer.retryAfterS ?? 1) * 1000);
        continue;
      }
      const status = answer.body;
      run.polls.push({ buyer: i, sentAt, state: status.state });
      if (status.state === 'ADMITTED' && record.admissionExpiresAt === undefined) {
        record.admissionExpiresAt = Date.parse(status.admissionExpiresAt!);
        if (await buy(client, record, status.admission!)) break;
      } else if (status.state !== 'WAITING' && status.state !== 'ADMITTED') {
        if (status.state === 'SOLD_OUT') [record.firstSoldOutAskedAt, record.firstSoldOutSeenAt] = [sentAt, Date.now()];
        record.finalState = status.state;
        break;
      }
      await sleep(status.pollAfterMs);
    }
    finished++;
  }

  /** One purchase with the admission, retried after Retry-After with the same key; true once bought. */
  async function buy(client: InstanceClient, record: BuyerRecord, admission: string): Promise<boolean> {
    const key = randomUUID();
    const headers = { authorization: `Bearer ${token(record.user)}`, admission, 'idempotency-key': key };
    while (Date.now() < record.admissionExpiresAt!) {
      const invokeMs = Date.now();
      const answer = await client.send<{ id?: string; code?: string }>(
        'POST',
        `/products/${run.productId}/purchase`,
        headers,
        { quantity: 1 },
      );
      const status = answer.status;
      history.add({
        op: 'purchase',
        productId: run.productId,
        userId: record.user,
        quantity: 1,
        key,
        purchaseId: answer.purchaseId,
        invokeMs,
        completeMs: Date.now(),
        status,
        code: answer.body.code,
        orderId: status === 201 ? String(answer.body.id) : undefined,
      });
      if (answer.status === 201) {
        record.boughtAt = Date.now();
        record.finalState = 'BOUGHT';
        run.sold++;
        if (run.sold === stock) run.lastUnitAt = record.boughtAt;
        return true;
      }
      if (answer.status !== 503 && answer.status !== 429) {
        run.unexpected.push(
          `purchase ${record.user} with an admission: HTTP ${answer.status} ${JSON.stringify(answer.body)}`,
        );
        return false;
      }
      await sleep((answer.retryAfterS ?? 1) * 1000);
    }
    return false;
  }
}
