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

/** The empty list of a purchase group without requests, polls or orders: shared, never added to. */
const NONE: never[] = [];
Object.freeze(NONE);

/** None, one (kept as itself) or several things: a long history's many lists of one, without a list each. */
type Few<T> = T | T[] | undefined;
const listOf = <T>(few: Few<T>): T[] => (few === undefined ? NONE : Array.isArray(few) ? few : [few]);
const plus = <T>(few: Few<T>, item: T): Few<T> =>
  few === undefined ? item : Array.isArray(few) ? (few.push(item), few) : [few, item];

/**
 * The operations of one purchase id (Idempotency-Key or the server's Purchase-Id) of one user.
 * Most ids of a long sale have one request, no poll and at most one order: each is kept as
 * itself, not in a list of one (50 bytes a request that a million-request history does not
 * need), and listed when asked.
 */
export class PurchaseGroup {
  private requests: Few<PurchaseRecord>;
  private finalOrders: Few<FinalOrder>;
  polls: PollRecord[] = NONE;

  constructor(
    readonly id: string,
    readonly userId: string,
  ) {}

  get purchases(): PurchaseRecord[] {
    return listOf(this.requests);
  }

  /** The final orders of this user and purchase id (at most one, unless something broke). */
  get orders(): FinalOrder[] {
    return listOf(this.finalOrders);
  }

  addPurchase(op: PurchaseRecord): void {
    this.requests = plus(this.requests, op);
  }

  addOrder(order: FinalOrder): void {
    this.finalOrders = plus(this.finalOrders, order);
  }
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
  /** Whether the history made operations for this user: orders of anyone else are not this history's. */
  hasUser(userId: string): boolean;
  byOrder: Map<string, OpRecord[]>;
  /** Per product: units of the pre-existing orders that ended (their units may have come back at any time). */
  returnedBefore: Map<string, number>;
  /** Per order: the earliest answer (client clock) that showed it exists: a 201, a CREATED poll, a pay or cancel answered 200. */
  shownByMs: Map<string, number>;
  /** The operations of each kind, in history order: rules walk their kind, not every operation. */
  byKind: { [K in OpRecord['op']]: Extract<OpRecord, { op: K }>[] };
}

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
  let users: Set<string> | undefined;
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
    hasUser: (userId) => {
      // Asked only of orders no purchase id explains and of queued products: a long sale of distinct
      // buyers seldom asks at all, and a set of a million user ids is memory it would not use.
      users ??= new Set(ops.flatMap((op) => ('userId' in op && op.userId ? [op.userId] : [])));
      return users.has(userId);
    },
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
    const first = byId.get(id);
    if (first?.userId === userId) return first;
    let found = first && shared.get(groupKey(userId, id));
    if (!found) {
      found = new PurchaseGroup(id, userId);
      if (first) shared.set(groupKey(userId, id), found);
      else byId.set(id, found);
      model.groups.push(found);
    }
    return found;
  };
  for (const op of ops) {
    (model.byKind[op.op] as OpRecord[]).push(op);
    if (op.op === 'purchase') {
      const id = op.key ?? op.purchaseId;
      const verdict = verdictOf(op);
      if (verdict === 'ok') shown(op.orderId, op.completeMs);
      if (id !== undefined) {
        group(op.userId, id).addPurchase(op);
      } else if (verdict === 'unknown')
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
    if (found) found.addOrder(order);
    else if (model.hasUser(order.userId)) model.strayOrders.push(order);
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
