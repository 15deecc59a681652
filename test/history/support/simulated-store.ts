import { FinalOrder, MetaRecord, OpRecord } from '../../../scripts/history/format';
import { meta as metaOf, P, T0 } from './records';
import { mulberry32 } from '../../../bench/lock/seeded-random';
import { QUEUE_FAULTS, QueueFault, simulateWaitingRoom } from './simulated-waiting-room';

/**
 * A correct flash-sale store, simulated one request at a time, that writes the history its
 * clients would have seen and the final orders its database would hold. With a fault armed it
 * misbehaves once, in one way, at the first chance it gets.
 */
export const FAULTS = {
  oversell: ['units'],
  'over-limit': ['per-user'],
  'lying-refusal': ['refusals', 'outcome'],
  'lost-201': ['durable'],
  'replay-refused': ['outcome'],
  'early-expiry': ['order-states'],
  'phantom-paid': ['order-states'],
  'late-pay': ['order-states'],
  'stale-read': ['reads-level', 'reads-rise', 'reads-fall'],
  'server-error': ['no-5xx'],
  'wrong-order': ['durable', 'outcome'],
  // Faults each of which one rule alone catches (ALONE below).
  'hidden-oversell': ['units'],
  'stray-order': ['explained'],
  'early-201': ['real-time'],
  'stranger-pay': ['order-actors'],
  'false-409-pay': ['order-answers'],
  'pending-after-created': ['purchase-answers'],
  'over-read': ['reads-level'],
  'rising-read': ['reads-rise'],
  'falling-read': ['reads-fall'],
  // Faults of a waiting room (simulated-waiting-room.ts), each caught by one queue rule alone.
  ...QUEUE_FAULTS,
} as const;
/** Faults that break one rule and no other: with that rule removed the checker would pass them. */
export const ALONE: Fault[] = [
  'over-limit',
  'lying-refusal',
  'lost-201',
  'replay-refused',
  'phantom-paid',
  'late-pay',
  'server-error',
  'hidden-oversell',
  'stray-order',
  'early-201',
  'stranger-pay',
  'false-409-pay',
  'pending-after-created',
  'over-read',
  'rising-read',
  'falling-read',
  'expired-purchase',
  'admitted-out-of-order',
  'over-admission',
];
export type Fault = keyof typeof FAULTS;

export interface Simulation {
  meta: MetaRecord;
  ops: OpRecord[];
  orders: FinalOrder[];
  finalReadAtMs: number;
  injected: boolean;
}

type Answer = { status: number; code?: string; orderId?: string } | { error: string };

const TTL_MS = 20_000;

export function simulate(seed: number, fault?: Fault, steps = 160): Simulation {
  if (fault !== undefined && fault in QUEUE_FAULTS) return simulateWaitingRoom(seed, fault as QueueFault);
  const rnd = mulberry32(seed);
  const pick = <T>(list: T[]): T | undefined => (list.length ? list[Math.floor(rnd() * list.length)] : undefined);
  const initialStock = 1 + Math.floor(rnd() * 6);
  const limit = 1 + Math.floor(rnd() * 2);
  const users = Array.from({ length: 3 + Math.floor(rnd() * 5) }, (_, i) => `u${i}`);
  const ops: OpRecord[] = [];
  const orders: FinalOrder[] = [];
  const lost = new Set<string>();
  /** `user|key` → the order it made, or the refusal it got for good. */
  const decided = new Map<string, { orderId?: string; code?: string; quantity: number }>();
  const retryable: { user: string; key: string; quantity: number }[] = [];
  let stock = initialStock;
  let setsSoFar = 0;
  let readsSoFar = 0;
  /** Once a read fault is injected the client reads no more: later reads would break other read rules too. */
  let readsOff = false;
  /** Orders some answer has shown (a 201, a CREATED poll, a pay or cancel answered 200). */
  const shownIds = new Set<string>();
  let t = 0;
  let injected = false;
  const armed = (f: Fault, minStep = 0, step = 0) => fault === f && !injected && step >= minStep;
  const at = (ms: number) => T0 + ms;
  const live = (o: FinalOrder) => o.status === 'PENDING_PAYMENT' || o.status === 'PAID';
  const held = (user: string) => orders.filter((o) => o.userId === user && live(o)).reduce((s, o) => s + o.quantity, 0);

  /** What the store does with a purchase at instant `e`: a replay, a refusal kept for good, or a new order. */
  function decide(user: string, key: string, quantity: number, e: number, step: number): Answer {
    const before = decided.get(`${user}|${key}`);
    if (before?.orderId) return { status: 201, orderId: before.orderId };
    if (before?.code) return { status: 409, code: before.code };
    const overLimit = held(user) + quantity > limit;
    const short = stock < quantity;
    let code: string | undefined;
    if (overLimit && !short && armed('over-limit', 10, step)) injected = true;
    else if (short && !overLimit && armed('oversell', 10, step)) injected = true;
    else if (overLimit) code = 'PER_USER_LIMIT';
    else if (short) code = 'SOLD_OUT';
    if (code) {
      decided.set(`${user}|${key}`, { code, quantity });
      return { status: 409, code };
    }
    const id = String(orders.length + 1);
    orders.push({
      id,
      productId: P,
      userId: user,
      quantity,
      status: 'PENDING_PAYMENT',
      purchaseId: key,
      createdAtMs: at(e),
      expiresAtMs: at(e + TTL_MS),
      paidAtMs: null,
      closedAtMs: null,
    });
    stock = Math.max(0, stock - quantity);
    decided.set(`${user}|${key}`, { orderId: id, quantity });
    return { status: 201, orderId: id };
  }

  const record = (op: Record<string, unknown>, invoke: number, complete: number, answer: Answer) => {
    const orderId = ('orderId' in answer ? answer.orderId : undefined) ?? op.orderId;
    if ('status' in answer && (answer.status === 200 || answer.status === 201) && typeof orderId === 'string')
      shownIds.add(orderId);
    ops.push({ ...op, invokeMs: at(invoke), completeMs: at(complete), ...answer } as unknown as OpRecord);
  };
  const unitsOf = (list: FinalOrder[]) => list.reduce((sum, o) => sum + o.quantity, 0);

  for (let step = 0; step < steps; step++) {
    // Steps further apart than twice the clock tolerance: every fault is then visible to the checker.
    t += 600 + Math.floor(rnd() * 1500);
    for (const o of orders) {
      const early =
        armed('early-expiry', 10, step) &&
        o.status === 'PENDING_PAYMENT' &&
        at(t) > o.createdAtMs + TTL_MS / 4 &&
        at(t) < o.expiresAtMs;
      if (o.status === 'PENDING_PAYMENT' && (o.expiresAtMs <= at(t) || early)) {
        injected ||= early;
        o.status = 'EXPIRED';
        o.closedAtMs = at(t);
        stock += o.quantity;
      }
    }
    const d = 5 + Math.floor(rnd() * 40);
    const e = t + 1 + Math.floor(rnd() * (d - 2));
    const user = pick(users) as string;
    const roll = rnd();
    if (roll < 0.4) {
      const key = `k${step}`;
      const quantity = 1 + Math.floor(rnd() * limit);
      const base = { op: 'purchase', productId: P, userId: user, quantity, key, purchaseId: key };
      const kind = rnd();
      if (kind < 0.1) {
        record(base, t, t + d, { status: 503, code: 'OVERLOADED' });
        retryable.push({ user, key, quantity });
      } else if (kind < 0.2) {
        // No answer: the purchase may have been made or not.
        if (armed('hidden-oversell', 10, step) && stock < quantity && held(user) + quantity <= limit) {
          injected = true;
          const id = String(orders.length + 1);
          orders.push({
            id,
            productId: P,
            userId: user,
            quantity,
            status: 'PENDING_PAYMENT',
            purchaseId: key,
            createdAtMs: at(e),
            expiresAtMs: at(e + TTL_MS),
            paidAtMs: null,
            closedAtMs: null,
          });
          decided.set(`${user}|${key}`, { orderId: id, quantity });
          // Below zero inside the store: reads show 0 until enough units come back.
          stock -= quantity;
        } else if (rnd() < 0.5) decide(user, key, quantity, e, step);
        record(base, t, t + 10_000, { error: 'TIMEOUT' });
        retryable.push({ user, key, quantity });
      } else if (kind < 0.3) {
        const answer = decide(user, key, quantity, e, step);
        record(base, t, t + d, { status: 202, code: 'PURCHASE_PENDING' });
        const state =
          'orderId' in answer && answer.orderId
            ? { state: 'CREATED', orderId: answer.orderId }
            : { state: 'REFUSED', code: (answer as { code: string }).code };
        record({ op: 'poll', userId: user, purchaseId: key }, t + d + 50, t + d + 55, {
          status: 200,
          ...state,
        } as Answer);
        if (state.state === 'CREATED' && armed('pending-after-created', 10, step)) {
          injected = true;
          record({ op: 'poll', userId: user, purchaseId: key }, t + d + 58, t + d + 59, {
            status: 200,
            state: 'PENDING',
          } as Answer);
        }
        t += 60;
      } else if (armed('early-201', 10, step) && stock >= quantity && held(user) + quantity <= limit) {
        // Answered 201 a second before the order was made; a retry of the key, in flight then, explains the order.
        injected = true;
        const answer = decide(user, key, quantity, t + d + 1000, step);
        record(base, t, t + d, answer);
        record(base, t + d + 500, t + d + 10_500, { error: 'TIMEOUT' });
        t += 1100;
      } else {
        if (armed('stray-order', 10, step) && stock >= 1 && held(user) + 1 <= limit) {
          // An order the store made that no request of the history asked for.
          injected = true;
          decide(user, `stray${step}`, 1, t - 300, step);
        }
        let answer = decide(user, key, quantity, e, step);
        if ('orderId' in answer && answer.orderId && armed('lying-refusal', 10, step)) {
          injected = true;
          decided.delete(`${user}|${key}`);
          answer = { status: 409, code: 'SOLD_OUT' };
        } else if ('orderId' in answer && answer.orderId && armed('lost-201', 10, step)) {
          injected = true;
          lost.add(answer.orderId);
          // The store lost the order and its hold: the units are for sale again, as reads show, and nothing ends it later.
          stock += quantity;
          const gone = orders[orders.length - 1];
          gone.status = 'CANCELLED';
          gone.closedAtMs = gone.createdAtMs;
        }
        record(base, t, t + d, answer);
      }
    } else if (roll < 0.5) {
      const bought = [...decided].filter(([, v]) => v.orderId);
      if ((armed('replay-refused', 10, step) || armed('wrong-order', 10, step)) && bought.length >= 2) {
        const [slot, v] = bought[0];
        const [owner, key] = slot.split('|');
        const other = bought.find(([s]) => !s.startsWith(`${owner}|`))?.[1].orderId;
        if (fault === 'wrong-order' && !other) continue;
        injected = true;
        const answer = fault === 'replay-refused' ? { status: 409, code: 'SOLD_OUT' } : { status: 201, orderId: other };
        record(
          { op: 'purchase', productId: P, userId: owner, quantity: v.quantity, key, purchaseId: key },
          t,
          t + d,
          answer as Answer,
        );
        continue;
      }
      const again = pick(retryable);
      if (again)
        record(
          {
            op: 'purchase',
            productId: P,
            userId: again.user,
            quantity: again.quantity,
            key: again.key,
            purchaseId: again.key,
          },
          t,
          t + d,
          decide(again.user, again.key, again.quantity, e, step),
        );
    } else if (roll < 0.7) {
      if (armed('server-error', 10, step)) {
        injected = true;
        record({ op: 'read', productId: P }, t, t + d, { status: 500, code: 'INTERNAL' });
        continue;
      }
      if (readsOff) continue;
      let shown = Math.max(0, stock);
      // Units that ended lately (their return may fall between two reads now) and orders no answer
      // showed yet (their units may leave the stock at any time): what a read fault must exceed.
      const returning = unitsOf(orders.filter((o) => !live(o) && (o.closedAtMs ?? Infinity) >= at(t) - 2000));
      const unshown = unitsOf(orders.filter((o) => !shownIds.has(o.id) || o.createdAtMs >= at(t) - 2000));
      if (armed('stale-read', 10, step) && setsSoFar === 0) {
        injected = true;
        shown = initialStock + orders.filter((o) => !live(o)).reduce((s, o) => s + o.quantity, 0) + 1;
      } else if (armed('over-read') && readsSoFar === 0 && setsSoFar === 0) {
        // The only read: more than the initial stock and every unit given back since could make.
        injected = readsOff = true;
        shown = initialStock + unitsOf(orders.filter((o) => !live(o))) + 1;
      } else if (armed('rising-read') && readsSoFar === 0 && shown > returning) {
        // The first read shows fewer units than there were; the next one, with nothing given back between, the truth.
        injected = true;
        record({ op: 'read', productId: P, stock: shown - returning - 1 }, t, t + d, { status: 200 });
        t += d + 1;
      } else if (armed('falling-read', 10, step) && shown > unshown) {
        // A true read, then one lower than any order made since could take it: the last read of the history.
        record({ op: 'read', productId: P, stock: shown }, t, t + d, { status: 200 });
        t += d + 1;
        injected = readsOff = true;
        shown -= unshown + 1;
      }
      readsSoFar++;
      record({ op: 'read', productId: P, stock: shown }, t, t + d, { status: 200 });
    } else if (roll < 0.82) {
      const o = pick(orders.filter((x) => x.status === 'PENDING_PAYMENT' && x.expiresAtMs > at(e)));
      if (!o) continue;
      if (armed('phantom-paid', 10, step)) {
        injected = true;
        o.status = 'PAID';
        o.paidAtMs = at(e);
        continue;
      }
      if (armed('false-409-pay', 10, step)) {
        injected = true;
        record({ op: 'pay', orderId: o.id, userId: o.userId }, t, t + d, { status: 409, code: 'INVALID_ORDER_STATE' });
        continue;
      }
      const payer = armed('stranger-pay', 10, step) ? users.find((u) => u !== o.userId) : o.userId;
      injected ||= payer !== o.userId;
      let payAt = e;
      let [invoke, complete] = [t, t + d];
      if (armed('late-pay', 10, step)) {
        injected = true;
        payAt = o.expiresAtMs - T0 + 500;
        [invoke, complete] = [payAt - 100, payAt + 10];
      }
      o.status = 'PAID';
      o.paidAtMs = at(payAt);
      record({ op: 'pay', orderId: o.id, userId: payer }, invoke, complete, {
        status: 200,
        orderStatus: 'PAID',
      } as Answer);
    } else if (roll < 0.95) {
      const o = pick(orders);
      if (!o) continue;
      const actor = o.status === 'PAID' || rnd() < 0.3 ? 'admin' : 'user';
      if (live(o)) {
        o.status = 'CANCELLED';
        o.closedAtMs = at(e);
        stock += o.quantity;
        record({ op: 'cancel', orderId: o.id, actor, userId: o.userId }, t, t + d, {
          status: 200,
          orderStatus: 'CANCELLED',
        } as Answer);
      } else
        record({ op: 'cancel', orderId: o.id, actor, userId: o.userId }, t, t + d, {
          status: 409,
          code: 'INVALID_ORDER_STATE',
        });
    } else {
      stock = Math.floor(rnd() * 5);
      setsSoFar++;
      record({ op: 'setStock', productId: P, stock }, t, t + d, { status: 200 });
    }
    t += d;
  }
  return {
    meta: metaOf({ initialStock, perUserLimit: limit, paymentTtlS: TTL_MS / 1000 }),
    ops,
    orders: orders.filter((o) => !lost.has(o.id)),
    finalReadAtMs: at(t + 10_001),
    injected,
  };
}
