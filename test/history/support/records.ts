import { FinalOrder, HISTORY_FORMAT, HistoryProduct, MetaRecord, OpRecord } from '../../../scripts/history/format';

/** Builders of history records and final orders for the corpus and the property tests. Times are ms after T0. */
export const T0 = 1_800_000_000_000;
export const P = '7';
const at = (ms: number): number => T0 + ms;

export const meta = (product: Partial<HistoryProduct> = {}): MetaRecord => ({
  op: 'meta',
  format: HISTORY_FORMAT,
  writer: 'corpus',
  products: [{ productId: P, initialStock: 3, perUserLimit: 1, ...product }],
});

type Answer = Partial<OpRecord> & { orderId?: string; state?: string; ticketId?: string; position?: number };

export const buy = (userId: string, key: string, t: number, answer: Answer, quantity = 1, ms = 10): OpRecord =>
  ({ op: 'purchase', productId: P, userId, quantity, key, purchaseId: key, invokeMs: at(t), completeMs: at(t + ms), ...shift(answer) }) as OpRecord;

export const poll = (userId: string, purchaseId: string, t: number, answer: Answer): OpRecord =>
  ({ op: 'poll', userId, purchaseId, invokeMs: at(t), completeMs: at(t + 5), status: 200, ...answer }) as OpRecord;

export const read = (stock: number, t: number, ms = 5): OpRecord => ({ op: 'read', productId: P, stock, status: 200, invokeMs: at(t), completeMs: at(t + ms) });

export const pay = (orderId: string, userId: string, t: number, answer: Answer = { status: 200, orderStatus: 'PAID' }): OpRecord =>
  ({ op: 'pay', orderId, userId, invokeMs: at(t), completeMs: at(t + 10), ...shift(answer) }) as OpRecord;

export const cancel = (orderId: string, actor: 'user' | 'admin', t: number, answer: Answer = { status: 200, orderStatus: 'CANCELLED' }): OpRecord =>
  ({ op: 'cancel', orderId, actor, invokeMs: at(t), completeMs: at(t + 10), ...shift(answer) }) as OpRecord;

export const setStock = (stock: number, t: number, answer: Answer = { status: 200 }): OpRecord => ({ op: 'setStock', productId: P, stock, invokeMs: at(t), completeMs: at(t + 10), ...shift(answer) }) as OpRecord;

export const join = (userId: string, t: number, answer: Answer): OpRecord => ({ op: 'queueJoin', productId: P, userId, invokeMs: at(t), completeMs: at(t + 5), status: 200, ...answer }) as OpRecord;

export const queuePoll = (userId: string, t: number, answer: Answer): OpRecord => ({ op: 'queuePoll', productId: P, userId, invokeMs: at(t), completeMs: at(t + 5), status: 200, ...answer }) as OpRecord;

/** `completeMs` in an answer is relative like the other times. */
function shift(answer: Answer): Answer {
  return answer.completeMs !== undefined ? { ...answer, completeMs: at(answer.completeMs) } : answer;
}

export interface OrderLife {
  quantity?: number;
  /** ms after creation */
  ttlMs?: number;
  /** absolute times after T0, or null */
  paidAt?: number | null;
  closedAt?: number | null;
}

/** An order as the database holds it: paid and closed times default to what its status implies (null when not paid / not closed). */
export function order(id: string, userId: string, key: string, created: number, status: FinalOrder['status'] = 'PENDING_PAYMENT', life: OrderLife = {}): FinalOrder {
  const ttl = life.ttlMs ?? 60_000;
  const paidAt = life.paidAt !== undefined ? life.paidAt : status === 'PAID' ? created + 1000 : null;
  const closedAt = life.closedAt !== undefined ? life.closedAt : status === 'EXPIRED' ? created + ttl : status === 'CANCELLED' ? created + 1000 : null;
  return {
    id,
    productId: P,
    userId,
    quantity: life.quantity ?? 1,
    status,
    purchaseId: key,
    createdAtMs: at(created),
    expiresAtMs: at(created + ttl),
    paidAtMs: paidAt === null ? null : at(paidAt),
    closedAtMs: closedAt === null ? null : at(closedAt),
  };
}

/** The same order as GET /orders shows it: no close time. */
export const viaApi = (o: FinalOrder): FinalOrder => {
  const { closedAtMs: _, ...rest } = o;
  return rest;
};

export const FINAL_READ = at(10_000_000);
