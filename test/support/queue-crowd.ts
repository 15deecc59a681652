import { randomUUID } from 'node:crypto';
import { sleep, withPg } from './api-client';
import { InstanceClient } from './queue-sale-http';
import { adminToken, token } from './tokens';

export interface CrowdBuyer {
  user: string;
  ticket: string;
  admission?: string;
  admissionExpiresAt?: number;
  /** Whether the admission was seen before the fault (set by the caller's `phase`). */
  admittedBeforeFault?: boolean;
  purchaseStatus?: number;
  final?: string;
}

/**
 * A small crowd for the waiting room's chaos tests: buyers join one at a time (so arrival order
 * is the order of the loop), then poll in rounds; they may hold their admissions unused until
 * told to buy, so that a fault can strike while admissions are out.
 */
export class QueueCrowd {
  readonly buyers: CrowdBuyer[] = [];
  /** Answers a buyer following the contract should never get. */
  readonly unexpected: string[] = [];
  /** Whether the fault has happened yet (marks the admissions seen before it). */
  faulted = false;
  productId = '';

  constructor(
    /** The instances still up; the caller drops a killed one. */
    public clients: InstanceClient[],
    private readonly tag: string,
  ) {}

  private get queuePath(): string {
    return `/products/${this.productId}/queue`;
  }

  async createProduct(stock: number, waitingRoom: Record<string, number>): Promise<void> {
    const created = await this.clients[0].send<{ id: string }>('POST', '/admin/products', { authorization: `Bearer ${adminToken()}` }, { sku: `${this.tag}-${randomUUID().slice(0, 8)}`, name: 'Queued through a fault', priceCents: 100, stock, perUserLimit: 1, waitingRoom });
    if (created.status !== 201) throw new Error(`create product: ${created.status}`);
    this.productId = created.body.id;
  }

  async join(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const user = `${this.tag}-buyer-${i}`;
      const joined = await this.clients[i % this.clients.length].send<{ ticket: string }>('POST', this.queuePath, { authorization: `Bearer ${token(user)}` });
      if (joined.status !== 200) throw new Error(`join ${user}: ${joined.status}`);
      this.buyers.push({ user, ticket: joined.body.ticket });
    }
  }

  held(): number {
    return this.buyers.filter((b) => b.admission).length;
  }

  /** One round of polls; with `buyNow`, admitted buyers buy (and those holding admissions do). */
  async pollAll(buyNow: boolean): Promise<void> {
    for (const [i, buyer] of this.buyers.entries()) {
      if (buyer.final || (buyer.admission && !buyNow)) continue;
      const answer = await this.clients[i % this.clients.length].send<{ state: string; admission?: string; admissionExpiresAt?: string }>('GET', `${this.queuePath}/${encodeURIComponent(buyer.ticket)}`);
      if (answer.status !== 200) {
        if (answer.status !== 503) this.unexpected.push(`poll: ${answer.status} ${JSON.stringify(answer.body)}`);
        else await sleep(50);
        continue;
      }
      if (answer.body.state === 'ADMITTED' && !buyer.admission) {
        buyer.admission = answer.body.admission;
        buyer.admissionExpiresAt = Date.parse(answer.body.admissionExpiresAt!);
        buyer.admittedBeforeFault = !this.faulted;
      } else if (answer.body.state !== 'WAITING' && answer.body.state !== 'ADMITTED') buyer.final = answer.body.state;
      if (buyNow && buyer.admission && buyer.purchaseStatus === undefined) await this.buy(buyer);
    }
  }

  /** Rounds of polls without buying until `count` admissions are held or the time is up; how many are. */
  async holdAdmissions(count: number, withinMs: number): Promise<number> {
    for (const deadline = Date.now() + withinMs; this.held() < count && Date.now() < deadline; ) await this.pollAll(false);
    return this.held();
  }

  /**
   * What a sale through a fault must end with, from the clients' answers and Postgres: every
   * admission shown before the fault bought, nothing unexpected answered, the buyers exactly the
   * first `stock` to join (arrival order kept), everyone after them told SOLD_OUT, and Postgres
   * agreeing (no stock left, the live orders the buyers').
   */
  async expectSoldInArrivalOrder(stock: number, databaseUrl: string): Promise<void> {
    const heldBefore = this.buyers.filter((b) => b.admittedBeforeFault);
    expect(heldBefore.map((b) => b.purchaseStatus)).toEqual(heldBefore.map(() => 201));
    expect(this.unexpected).toEqual([]);
    const bought = this.bought();
    expect(bought).toEqual(Array.from({ length: stock }, (_, i) => i));
    expect(this.buyers.slice(stock).map((b) => b.final)).toEqual(this.buyers.slice(stock).map(() => 'SOLD_OUT'));
    const pg = await this.ground(databaseUrl);
    expect(pg.stock).toBe(0);
    expect(pg.users.sort()).toEqual(bought.map((i) => this.buyers[i].user).sort());
  }

  /** Rounds of polls until every buyer is done or the time is up. */
  async finish(timeoutMs: number): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; this.buyers.some((b) => !b.final) && Date.now() < deadline; ) await this.pollAll(true);
  }

  private async buy(buyer: CrowdBuyer): Promise<void> {
    const headers = { authorization: `Bearer ${token(buyer.user)}`, admission: buyer.admission!, 'idempotency-key': randomUUID() };
    for (;;) {
      const answer = await this.clients[0].send('POST', `/products/${this.productId}/purchase`, headers, { quantity: 1 });
      buyer.purchaseStatus = answer.status;
      if (answer.status !== 503 || Date.now() > buyer.admissionExpiresAt!) break;
      await sleep((answer.retryAfterS ?? 1) * 1000);
    }
    if (buyer.purchaseStatus === 201) buyer.final = 'BOUGHT';
    else this.unexpected.push(`purchase of ${buyer.user} with an admission: ${buyer.purchaseStatus}`);
  }

  /** Indexes (arrival order) of the buyers who bought. */
  bought(): number[] {
    return this.buyers.flatMap((b, i) => (b.final === 'BOUGHT' ? [i] : []));
  }

  /** Postgres's word: the product's stock, and the users holding its live orders. */
  ground(databaseUrl: string): Promise<{ stock: number; users: string[] }> {
    return withPg(databaseUrl, async (client) => ({
      stock: (await client.query('SELECT stock FROM products WHERE id = $1', [this.productId])).rows[0].stock,
      users: (await client.query(`SELECT user_id FROM orders WHERE product_id = $1 AND status IN ('PENDING_PAYMENT', 'PAID')`, [this.productId])).rows.map((r) => r.user_id as string),
    }));
  }
}
