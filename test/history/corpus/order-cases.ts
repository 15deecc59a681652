import { FinalOrder } from '../../../scripts/history/format';
import { breaks, CorpusCase, passes } from './case';
import { buy, cancel, meta, order, pay, viaApi } from '../support/records';

const bought = buy('a', 'ka', 0, { status: 201, orderId: '1' });
const unknownPaidTime = (o: FinalOrder): FinalOrder => {
  const { paidAtMs: _, ...rest } = viaApi(o);
  return rest;
};

/** Order life: every state has a cause, at a time the database's record allows. */
export const orderCases: CorpusCase[] = [
  breaks('a pay answered 200 long after the order was due (no recorded times)', ['order-states'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 200_000)],
    orders: [unknownPaidTime(order('1', 'a', 'ka', 5, 'PAID', { paidAt: 200_002 }))],
    apiOnly: true,
  }),
  breaks('a pay the database recorded after the order was due', ['order-states'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 60_900)],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 61_000 })],
  }),
  passes('a pay before the order was due', {
    meta: meta(),
    ops: [bought, pay('1', 'a', 50_000)],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 50_002 })],
  }),
  breaks('PAID in a history that records no pay', ['order-states'], {
    meta: meta(),
    ops: [bought],
    orders: [order('1', 'a', 'ka', 5, 'PAID')],
  }),
  breaks('CANCELLED in a history that records no cancel', ['order-states'], {
    meta: meta(),
    ops: [bought],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED')],
  }),
  breaks('cancelled by the database before any cancel was sent', ['order-states'], {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 9000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 3000 })],
  }),
  passes('cancelled by the buyer', {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 9000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 9002 })],
  }),
  breaks('expired by the database before it was due', ['order-states'], {
    meta: meta(),
    ops: [bought],
    orders: [order('1', 'a', 'ka', 5, 'EXPIRED', { closedAt: 30_000 })],
  }),
  breaks('an expiresAt written earlier than createdAt + the payment TTL', ['order-states'], {
    meta: meta({ paymentTtlS: 900 }),
    ops: [bought],
    orders: [order('1', 'a', 'ka', 5, 'EXPIRED', { ttlMs: 60_000 })],
  }),
  passes('expired after createdAt + the payment TTL', {
    meta: meta({ paymentTtlS: 900 }),
    ops: [bought],
    orders: [order('1', 'a', 'ka', 5, 'EXPIRED', { ttlMs: 900_000, closedAt: 900_100 })],
  }),
  breaks('paid, then expired', ['order-states'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000)],
    orders: [order('1', 'a', 'ka', 5, 'EXPIRED', { paidAt: 1002 })],
  }),
  breaks('paid, then cancelled by the buyer', ['order-states'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000), cancel('1', 'user', 2000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { paidAt: 1002, closedAt: 2002 })],
  }),
  passes('paid, then refunded by an admin', {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000), cancel('1', 'admin', 2000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { paidAt: 1002, closedAt: 2002 })],
  }),
];
