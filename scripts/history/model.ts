import { FinalOrder, HistoryProduct, MetaRecord, OpRecord, PollRecord, PurchaseRecord, verdictOf } from './format';

export interface CheckOptions {
  /**
   * Tolerance between the clients' clocks and the database's (order createdAt/expiresAt), in ms.
   * On one host the clocks are the same; raise it when the writer ran elsewhere.
   */
  skewMs: number;
  /** How stale a product read may be (a cache in front of the API); 0 when reads reach the API. */
  staleReadMs: number;
  /** When the final state was read (client clock), for "expired before its time". */
  finalReadAtMs: number;
}

/** The operations of one purchase id (Idempotency-Key or the server's Purchase-Id) of one user. */
export interface PurchaseGroup {
  id: string;
  userId: string;
  purchases: PurchaseRecord[];
  polls: PollRecord[];
  /** The final orders of this user and purchase id (at most one, unless something broke). */
  orders: FinalOrder[];
}

/** The history and the final state, indexed once for all rules. */
export interface Model {
  options: CheckOptions;
  products: Map<string, HistoryProduct>;
  ops: OpRecord[];
  /** Final orders of the history's products, without the pre-existing ones. */
  orders: FinalOrder[];
  /** The pre-existing orders of the history's products: not judged, but their ends give units back. */
  preexisting: FinalOrder[];
  ordersById: Map<string, FinalOrder>;
  /** Every purchase id's operations and orders. */
  groups: PurchaseGroup[];
  /** The group of a user's purchase id, if the history has one. */
  groupOf(userId: string, purchaseId: string): PurchaseGroup | undefined;
  /** Orders of the history's users whose purchase id no operation named. */
  strayOrders: FinalOrder[];
  /** Purchases without a key whose answer named no purchase id (no answer at all): `user|product` → count. */
  anonymousUnknown: Map<string, number>;
  /** Users the history made operations for: orders of anyone else are not this history's. */
  users: Set<string>;
  byOrder: Map<string, OpRecord[]>;
  /** Per product: units of the pre-existing orders that ended (their units may have come back at any time). */
  returnedBefore: Map<string, number>;
  /** Per order: the earliest answer (client clock) that showed it exists: a 201, a CREATED poll, a pay or cancel answered 200. */
  shownByMs: Map<string, number>;
  /** The operations of each kind, in history order: rules walk their kind, not every operation. */
  byKind: { [K in OpRecord['op']]: Extract<OpRecord, { op: K }>[] };
}

/** The empty list every purchase group starts with: most ids have one request and no poll, and a list each is memory a long history does not have. */
const NONE: never[] = [];
Object.freeze(NONE);

export const groupKey = (userId: string, purchaseId: string): string => `${userId}|${purchaseId}`;

export function buildModel(meta: MetaRecord, ops: OpRecord[], finalOrders: FinalOrder[], options: CheckOptions): Model {
  const products = new Map(meta.products.map((p) => [String(p.productId), { ...p, productId: String(p.productId) }]));
  const preexisting = new Set(meta.products.flatMap((p) => (p.preexistingOrderIds ?? []).map(String)));
  const orders = finalOrders.filter((o) => products.has(o.productId) && !preexisting.has(o.id));
  const returnedBefore = new Map<string, number>();
  for (const o of finalOrders)
    if (preexisting.has(o.id) && products.has(o.productId) && !isLive(o))
      returnedBefore.set(o.productId, (returnedBefore.get(o.productId) ?? 0) + o.quantity);
  // By purchase id alone (ids are nearly always unique across users: no key string built per
  // operation); the rare id two users share goes to a map keyed by both.
  const byId = new Map<string, PurchaseGroup>();
  const shared = new Map<string, PurchaseGroup>();
  const find = (userId: string, id: string): PurchaseGroup | undefined => {
    const first = byId.get(id);
    return first === undefined || first.userId === userId ? first : shared.get(groupKey(userId, id));
  };
  const model: Model = {
    options,
    products,
    ops,
    orders,
    preexisting: finalOrders.filter((o) => products.has(o.productId) && preexisting.has(o.id)),
    ordersById: new Map(orders.map((o) => [o.id, o])),
    groups: [],
    groupOf: find,
    strayOrders: [],
    anonymousUnknown: new Map(),
    users: new Set(),
    byOrder: new Map(),
    returnedBefore,
    shownByMs: new Map(),
    byKind: { purchase: [], pay: [], cancel: [], setStock: [], read: [], poll: [], queueJoin: [], queuePoll: [] },
  };
  const shown = (orderId: string | undefined, atMs: number) => {
    if (orderId !== undefined && !(atMs >= (model.shownByMs.get(orderId) ?? Infinity)))
      model.shownByMs.set(orderId, atMs);
  };
  const group = (userId: string, id: string): PurchaseGroup => {
    let found = find(userId, id);
    if (!found) {
      found = { id, userId, purchases: NONE, polls: NONE, orders: NONE };
      if (byId.has(id)) shared.set(groupKey(userId, id), found);
      else byId.set(id, found);
      model.groups.push(found);
    }
    return found;
  };
  for (const op of ops) {
    (model.byKind[op.op] as OpRecord[]).push(op);
    if ('userId' in op && op.userId) model.users.add(op.userId);
    if (op.op === 'purchase') {
      const id = op.key ?? op.purchaseId;
      if (verdictOf(op) === 'ok') shown(op.orderId, op.completeMs);
      if (id !== undefined) {
        const g = group(op.userId, id);
        g.purchases = g.purchases === NONE ? [op] : (g.purchases.push(op), g.purchases);
      } else if (verdictOf(op) === 'unknown')
        model.anonymousUnknown.set(
          `${op.userId}|${op.productId}`,
          (model.anonymousUnknown.get(`${op.userId}|${op.productId}`) ?? 0) + 1,
        );
    } else if (op.op === 'poll') {
      const g = group(op.userId, op.purchaseId);
      g.polls = g.polls === NONE ? [op] : (g.polls.push(op), g.polls);
      if (op.state === 'CREATED') shown(op.orderId, op.completeMs);
    } else if (op.op === 'pay' || op.op === 'cancel') {
      if (verdictOf(op) === 'ok') shown(op.orderId, op.completeMs);
      const list = model.byOrder.get(op.orderId);
      if (list) list.push(op);
      else model.byOrder.set(op.orderId, [op]);
    }
  }
  for (const order of orders) {
    const found = order.purchaseId !== null ? model.groupOf(order.userId, order.purchaseId) : undefined;
    if (found) found.orders = found.orders === NONE ? [order] : (found.orders.push(order), found.orders);
    else if (model.users.has(order.userId)) model.strayOrders.push(order);
  }
  return model;
}

/** When an operation's effect may have happened at the latest: never, for an unknown answer. */
export const latestEffectMs = (op: OpRecord): number => (verdictOf(op) === 'unknown' ? Infinity : op.completeMs);

export function isLive(o: FinalOrder): boolean {
  return o.status === 'PENDING_PAYMENT' || o.status === 'PAID';
}

/** When the order was due to expire (database clock): createdAt + the writer's payment TTL when the history gives it, else the order's expiresAt. */
export function dueMs(m: Model, o: FinalOrder): number {
  const ttlS = m.products.get(o.productId)?.paymentTtlS;
  return ttlS !== undefined ? o.createdAtMs + ttlS * 1000 : o.expiresAtMs;
}

export const describe = (op: OpRecord): string => {
  const answer = op.error !== undefined ? `transport ${op.error}` : `${op.status}${op.code ? ` ${op.code}` : ''}`;
  return `${op.op}${'key' in op && op.key ? ` key ${op.key}` : ''}${'orderId' in op && op.orderId ? ` order ${op.orderId}` : ''} [${op.invokeMs}..${op.completeMs}] → ${answer}`;
};
