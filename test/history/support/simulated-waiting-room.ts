import { FinalOrder, OpRecord } from '../../../scripts/history/format';
import { mulberry32 } from '../../../bench/lock/seeded-random';
import { buy, join, meta, order, queuePoll, T0 } from './records';
import type { Simulation } from './simulated-store';

/** Faults of a waiting room, each caught by one queue rule alone. */
export const QUEUE_FAULTS = {
  // A buyer whose admission was seen EXPIRED buys anyway, with no new admission (the store kept its unit).
  'expired-purchase': ['queue-admitted'],
  // The store admits a later ticket while an earlier one, still polling, waits.
  'admitted-out-of-order': ['queue-order'],
  // The store admits one buyer more than it has units for sale.
  'over-admission': ['queue-stock'],
} as const;
export type QueueFault = keyof typeof QUEUE_FAULTS;

type Ticket = {
  user: string;
  id: string;
  state: 'WAITING' | 'ADMITTED' | 'EXPIRED' | 'BOUGHT' | 'SOLD_OUT';
  /** ADMITTED answers given so far. */
  admittedPolls: number;
  /** Whether the buyer buys once admitted (else its admission expires). */
  willBuy: boolean;
  /** The final state was told: the buyer polls no more. */
  done: boolean;
};

const TTL_MS = 600_000;

/**
 * A correct waiting-room sale, one round a second: every buyer joins, the store admits tickets in
 * ticket order while the admissions outstanding fit the stock, each admitted buyer polls ADMITTED
 * twice and buys (or lets its admission expire after three rounds), and once no unit is left the
 * waiting buyers are told SOLD_OUT. With a fault armed the store misbehaves once.
 */
export function simulateWaitingRoom(seed: number, fault?: QueueFault): Simulation {
  const rnd = mulberry32(seed);
  let stock = 1 + Math.floor(rnd() * 4);
  const initialStock = stock;
  const tickets: Ticket[] = Array.from({ length: stock + 2 + Math.floor(rnd() * 4) }, (_, i) => ({
    user: `w${i}`,
    id: String(i + 1),
    state: 'WAITING',
    admittedPolls: 0,
    // The first buyer always buys (a sale with no order gives the admission rule nothing to judge);
    // with an expired purchase to inject, the second never does.
    willBuy: i === 0 || (fault === 'expired-purchase' && i === 1 ? false : rnd() < 0.7),
    done: false,
  }));
  const ops: OpRecord[] = [];
  const orders: FinalOrder[] = [];
  let injected = false;
  let t = 0;
  tickets.forEach((k, i) =>
    ops.push(join(k.user, (t = i * 20), { ticketId: k.id, state: 'WAITING', position: i + 1, pollAfterMs: 1000 })),
  );
  /** A ticket the store passes over (out of order) until this round. */
  let heldBack: { ticket: Ticket; untilRound: number } | undefined;
  /** A unit the store keeps, after an expiry, for the expired buyer's purchase. */
  let keptFor: Ticket | undefined;

  const purchase = (k: Ticket, at: number) => {
    const key = `k${k.user}`;
    if (stock < 1) {
      ops.push(buy(k.user, key, at, { status: 409, code: 'SOLD_OUT' }));
      k.state = 'SOLD_OUT';
      return;
    }
    const id = String(orders.length + 1);
    stock--;
    ops.push(buy(k.user, key, at, { status: 201, orderId: id }));
    orders.push(order(id, k.user, key, at + 2, 'PENDING_PAYMENT', { ttlMs: TTL_MS }));
    k.state = 'BOUGHT';
  };

  for (let round = 0; round < 40 && tickets.some((k) => !k.done); round++) {
    t += 1000;
    // Admissions not used for three rounds expire.
    for (const k of tickets)
      if (k.state === 'ADMITTED' && !k.willBuy && k.admittedPolls >= 3) {
        k.state = 'EXPIRED';
        if (fault === 'expired-purchase' && !injected && !keptFor) keptFor = k;
      }
    const outstanding = tickets.filter((k) => k.state === 'ADMITTED').length + (keptFor ? 1 : 0);
    let room = stock - outstanding;
    if (fault === 'over-admission' && !injected && round === 0) {
      injected = true;
      room++;
    }
    for (const k of tickets) {
      if (room <= 0) break;
      if (k.state !== 'WAITING') continue;
      if (
        fault === 'admitted-out-of-order' &&
        !injected &&
        round === 0 &&
        tickets.some((x) => x !== k && x.state === 'WAITING')
      ) {
        injected = true;
        heldBack = { ticket: k, untilRound: round + 2 };
      }
      if (heldBack?.ticket === k && round < heldBack.untilRound) continue;
      k.state = 'ADMITTED';
      room--;
    }
    if (stock <= 0) for (const k of tickets) if (k.state === 'WAITING') k.state = 'SOLD_OUT';
    // Every buyer still in the sale polls its ticket, in ticket order.
    let waitingAhead = 0;
    for (const k of tickets) {
      if (k.done) continue;
      t += 20;
      const position = k.state === 'WAITING' ? ++waitingAhead : 0;
      ops.push(queuePoll(k.user, t, { ticketId: k.id, state: k.state, position, pollAfterMs: 1000 }));
      if (k.state === 'ADMITTED') {
        k.admittedPolls++;
        if (k.willBuy && k.admittedPolls >= 2) purchase(k, (t += 20));
      } else if (k.state === 'EXPIRED' && keptFor === k) {
        // Well after the EXPIRED answer: the order is surely made after the ticket was seen expired.
        injected = true;
        keptFor = undefined;
        purchase(k, (t += 400));
        k.done = true;
      } else k.done = k.state !== 'WAITING';
    }
  }
  return {
    meta: meta({
      initialStock,
      perUserLimit: 1,
      paymentTtlS: TTL_MS / 1000,
      waitingRoom: { saleStartsAtMs: null, seed: null },
    }),
    ops,
    orders,
    finalReadAtMs: T0 + t + 10_000,
    injected,
  };
}
