/**
 * The history format (docs/LOADTEST.md, "History format"): JSON lines, one operation a line, as the
 * client saw it. Any client in any language can write one; `npm run check-history` judges it.
 */

export const HISTORY_FORMAT = 'flash-sale-history/1';

/** What the writer set up: the ground truth the checker measures the sale against. */
export interface HistoryProduct {
  productId: string;
  /** The stock the writer created the product with (or read before its first operation). */
  initialStock: number;
  perUserLimit: number;
  /** Orders that existed before the history started; the checker leaves them out. */
  preexistingOrderIds?: string[];
  /**
   * The deployment's ORDER_PAYMENT_TTL_S, as the writer configured it: an order is due to expire
   * `createdAt` + this. Without it the checker takes each order's `expiresAt`.
   */
  paymentTtlS?: number;
  /** A product sold through a waiting room: when its sale started and the seed it published (null before). */
  waitingRoom?: { saleStartsAtMs?: number | null; seed?: string | null };
}

export interface MetaRecord {
  op: 'meta';
  format: typeof HISTORY_FORMAT;
  writer?: string;
  startedAtMs?: number;
  products: HistoryProduct[];
  /** Present when this history is one generator's part of a run several generators share. */
  run?: GeneratorRun;
}

/**
 * One generator's part of a shared run: the checker merges the histories of one run id, each moved
 * onto the reference clock by its offset and widened by that offset's uncertainty.
 */
export interface GeneratorRun {
  /** The run id every generator of the run was given (`--run-id`). */
  id: string;
  /** This generator, unique within the run (`--generator`). */
  generator: string;
  /** The lead created (or first read) the product: its meta's products are the run's ground truth. */
  role: 'lead' | 'follower';
  clock: ClockOffset;
  /**
   * The lead's: when (its clock) it created the products, or read the existing ones' stock and
   * orders. A follower's operation surely over before then could hide in that ground truth.
   */
  productsReadAtMs?: number;
}

/** This writer's clock against a reference clock, measured before its first operation. */
export interface ClockOffset {
  /** Reference time minus this writer's time: a time t written here happened at t + offsetMs on the reference. */
  offsetMs: number;
  /** The true offset is within offsetMs ± uncertaintyMs. */
  uncertaintyMs: number;
  /** What was measured against, e.g. `date-header http://api:3000` (the API's Date header). */
  against: string;
  /** When (this writer's clock) the measurement ended. */
  measuredAtMs: number;
  /** How many readings bounded it. */
  samples: number;
}

/** Fields every operation has: client-side wall-clock times in ms since the epoch, and the answer. */
interface OpBase {
  /** Which client (worker, connection) made it; free text. */
  process?: string;
  invokeMs: number;
  completeMs: number;
  /** HTTP status; absent when `error` is set (no answer). */
  status?: number;
  /** The contract error code of a 4xx/5xx, or PURCHASE_PENDING of a 202. */
  code?: string;
  /** A transport failure instead of an answer: TIMEOUT, ECONNRESET, ... */
  error?: string;
}

export interface PurchaseRecord extends OpBase {
  op: 'purchase';
  productId: string;
  userId: string;
  quantity: number;
  /** The Idempotency-Key sent, if any. */
  key?: string;
  /** The answer's Purchase-Id header (or the 202 body's purchaseId). */
  purchaseId?: string;
  /** The order id of a 201. */
  orderId?: string;
}

export interface PayRecord extends OpBase {
  op: 'pay';
  orderId: string;
  userId?: string;
  /** The answered order's status (direct pay) ... */
  orderStatus?: string;
  /** ... or the webhook's `result` (PAID, ALREADY_PROCESSED, ORDER_NOT_PAYABLE, FAILED_RECORDED). */
  result?: string;
}

export interface CancelRecord extends OpBase {
  op: 'cancel';
  orderId: string;
  /** Who asked: the order's buyer or an admin (only an admin may cancel a PAID order). */
  actor: 'user' | 'admin';
  userId?: string;
  orderStatus?: string;
}

/** PUT /admin/products/:id/stock: sets the units still for sale. */
export interface SetStockRecord extends OpBase {
  op: 'setStock';
  productId: string;
  stock: number;
}

/** GET /products/:id: the stock the client saw. */
export interface ReadRecord extends OpBase {
  op: 'read';
  productId: string;
  stock?: number;
}

/** GET /purchases/:purchaseId. */
export interface PollRecord extends OpBase {
  op: 'poll';
  purchaseId: string;
  userId: string;
  productId?: string;
  state?: 'PENDING' | 'CREATED' | 'REFUSED';
  orderId?: string;
}

/** What a waiting-room answer said of the buyer's ticket (absent on a refusal). */
interface TicketAnswer extends OpBase {
  productId: string;
  userId: string;
  ticketId?: string;
  /** The answered ticket state (WAITING, ADMITTED, SOLD_OUT, EXPIRED, BOUGHT). */
  state?: string;
  position?: number;
  /** When the server asked the buyer to poll next. */
  pollAfterMs?: number;
}

/** POST /products/:id/queue: a buyer joins a waiting room (200 ticket status, or 409 SOLD_OUT...). */
export interface QueueJoinRecord extends TicketAnswer {
  op: 'queueJoin';
}

/** GET /products/:id/queue/:ticket: a buyer polls its ticket. */
export interface QueuePollRecord extends TicketAnswer {
  op: 'queuePoll';
}

export type OpRecord =
  | PurchaseRecord
  | PayRecord
  | CancelRecord
  | SetStockRecord
  | ReadRecord
  | PollRecord
  | QueueJoinRecord
  | QueuePollRecord;
export type HistoryRecord = MetaRecord | OpRecord;

/** An order as the final state shows it (GET /orders or the orders table). */
export interface FinalOrder {
  id: string;
  productId: string;
  userId: string;
  quantity: number;
  status: 'PENDING_PAYMENT' | 'PAID' | 'CANCELLED' | 'EXPIRED';
  purchaseId: string | null;
  createdAtMs: number;
  expiresAtMs: number;
  /** When the database recorded the payment (`orders.paid_at`, the contract's `paidAt`); null: never; absent: unknown. */
  paidAtMs?: number | null;
  /** When the database recorded the cancel or expiry (`orders.closed_at`); null: never; absent: unknown (GET /orders does not show it). */
  closedAtMs?: number | null;
}

export type Verdict = 'ok' | 'refused' | 'unknown';

/**
 * How an answer counts: a definite success (2xx but 202), a definite refusal (any 4xx, or 503:
 * nothing was done; or ECONNREFUSED: nothing was sent), or unknown (no answer, 202 PURCHASE_PENDING, any other 5xx): the operation
 * may have taken effect or not, now or later.
 */
export function verdictOf(op: OpBase): Verdict {
  // The connection was never made: no byte of the request reached a server.
  if (op.error === 'ECONNREFUSED') return 'refused';
  if (op.error !== undefined || op.status === undefined) return 'unknown';
  if (op.status === 202) return 'unknown';
  if (op.status >= 200 && op.status < 300) return 'ok';
  if ((op.status >= 400 && op.status < 500) || op.status === 503) return 'refused';
  return 'unknown';
}

/** Queue operations change no stock and no order: the checker only holds them to "no 5xx but 503". */
const OPS = new Set(['purchase', 'pay', 'cancel', 'setStock', 'read', 'poll', 'queueJoin', 'queuePoll']);

/** Parses JSON lines; throws with the line number on anything that is not a history record. */
export function parseHistory(text: string): { meta: MetaRecord; ops: OpRecord[] } {
  const lines = new HistoryLines();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lines.add(text.slice(start, end));
    start = end + 1;
  }
  return lines.end();
}

/** Reads a history's lines one at a time (see read-history.ts for a file), keeping the meta record and the operations. */
export class HistoryLines {
  private meta: MetaRecord | undefined;
  private readonly ops: OpRecord[] = [];
  private line = 0;

  add(text: string): void {
    const line = ++this.line;
    const raw = text.trim();
    if (!raw) return;
    let record: HistoryRecord;
    try {
      record = JSON.parse(raw) as HistoryRecord;
    } catch {
      throw new Error(`line ${line}: not JSON`);
    }
    if (record.op === 'meta') {
      if (this.meta) throw new Error(`line ${line}: a second meta record`);
      if (record.format !== HISTORY_FORMAT)
        throw new Error(`line ${line}: format ${String(record.format)}, expected ${HISTORY_FORMAT}`);
      if (!Array.isArray(record.products)) throw new Error(`line ${line}: meta without products`);
      this.meta = record;
      return;
    }
    if (!OPS.has(record.op)) throw new Error(`line ${line}: unknown op ${String((record as { op?: unknown }).op)}`);
    if (typeof record.invokeMs !== 'number' || typeof record.completeMs !== 'number')
      throw new Error(`line ${line}: invokeMs and completeMs are required`);
    this.ops.push(record);
  }

  end(): { meta: MetaRecord; ops: OpRecord[] } {
    if (!this.meta) throw new Error('no meta record: the checker needs the products and their initial stock');
    return { meta: this.meta, ops: this.ops };
  }
}
