import { breaks, CorpusCase, passes } from './case';
import { buy, cancel, meta, order, pay, viaApi } from '../support/records';
import { FinalOrder } from '../../../scripts/history/format';

// The clock allowance of the checker's default options (ms).
const SKEW = 250;
const bought = buy('a', 'ka', 0, { status: 201, orderId: '1' });
const webhook = (t: number, result: string, extra = {}) =>
  pay('1', 'a', t, { status: 200, result, userId: undefined, ...extra });
const refusedPay = (t: number) => pay('1', 'a', t, { status: 409, code: 'INVALID_ORDER_STATE' });
const notFound = (t: number) => pay('1', 'a', t, { status: 404, code: 'ORDER_NOT_FOUND' });
/** An order as an older writer recorded it: neither a paid nor a closed time. */
const noTimes = (o: FinalOrder): FinalOrder => {
  const { paidAtMs: _p, closedAtMs: _c, ...rest } = o;
  return rest;
};

/**
 * Family "near misses, orders": for each order rule, a history that sits just inside what it
 * allows beside one just outside (an edge of the clock allowance or a due time, a second clause
 * that alone decides), so that a rule which judged a clause loosely or not at all would be seen.
 */
export const nearMissOrderCases: CorpusCase[] = [
  // order-answers: ORDER_NOT_FOUND only while the order may not exist yet (createdAt + skew).
  passes('[near miss] a pay answered ORDER_NOT_FOUND exactly the allowance after the order was created', {
    meta: meta(),
    ops: [bought, notFound(5 + SKEW)],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks('[near miss] a pay answered ORDER_NOT_FOUND a millisecond past the allowance', ['order-answers'], {
    meta: meta(),
    ops: [bought, notFound(5 + SKEW + 1)],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  // order-answers: FORBIDDEN never to the order's own user, unless it came as an admin.
  breaks("[near miss] a pay by the order's own user answered FORBIDDEN", ['order-answers'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000, { status: 403, code: 'FORBIDDEN' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  passes('[near miss] a pay by another user answered FORBIDDEN', {
    meta: meta(),
    ops: [bought, pay('1', 'b', 1000, { status: 403, code: 'FORBIDDEN' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  passes("[near miss] an admin cancel by the order's user id answered FORBIDDEN", {
    meta: meta(),
    ops: [bought, cancel('1', 'admin', 1000, { status: 403, code: 'FORBIDDEN', userId: 'a' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks("[near miss] a user cancel by the order's own user answered FORBIDDEN", ['order-answers'], {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 1000, { status: 403, code: 'FORBIDDEN', userId: 'a' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  // order-answers: ALREADY_PROCESSED needs another pay of the order sent by its answer.
  breaks('[near miss] a lone webhook delivery answered ALREADY_PROCESSED', ['order-answers'], {
    meta: meta(),
    ops: [bought, webhook(1000, 'ALREADY_PROCESSED')],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 })],
  }),
  breaks('[near miss] ALREADY_PROCESSED before the first delivery was sent', ['order-answers'], {
    meta: meta(),
    ops: [bought, webhook(1000, 'ALREADY_PROCESSED'), webhook(3000, 'PAID')],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 3002 })],
  }),
  passes('[near miss] ALREADY_PROCESSED answered the instant the first delivery was sent', {
    meta: meta(),
    ops: [bought, webhook(1000, 'ALREADY_PROCESSED'), webhook(1010, 'PAID')],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1015 })],
  }),
  breaks('[near miss] ALREADY_PROCESSED after only a cancel of the order', ['order-answers'], {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 1000), webhook(2000, 'ALREADY_PROCESSED')],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 1002 })],
  }),
  // order-answers: a 200 without the order's status says nothing false.
  passes('[near miss] a pay answered 200 without the order status', {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000, { status: 200 })],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1005 })],
  }),
  // order-actors: a webhook names no user who acts.
  passes('[near miss] a webhook delivery carrying a user id that is not the buyer', {
    meta: meta(),
    ops: [bought, webhook(1000, 'PAID', { userId: 'provider' })],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 })],
  }),
  // order-answers, state refusals: a user cancel needs the order pending, not merely live.
  passes('[near miss] a user cancel refused INVALID_ORDER_STATE of a paid order', {
    meta: meta(),
    ops: [bought, pay('1', 'a', 400), cancel('1', 'user', 1000, { status: 409, code: 'INVALID_ORDER_STATE' })],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 405 })],
  }),
  // Created by the time the refused pay was sent, give or take the allowance.
  passes('[near miss] a pay refused for its state a millisecond inside the allowance after creation', {
    meta: meta(),
    ops: [bought, refusedPay(5 + SKEW - 1)],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks('[near miss] a pay refused for its state exactly the allowance after creation', ['order-answers'], {
    meta: meta(),
    ops: [bought, refusedPay(5 + SKEW)],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  // Final state read through the API (no close time): the status alone decides.
  breaks('[near miss] a pay refused for its state of an order the API shows pending', ['order-answers'], {
    meta: meta(),
    ops: [bought, refusedPay(1000)],
    orders: [viaApi(order('1', 'a', 'ka', 5))],
    apiOnly: true,
  }),
  breaks('[near miss] an admin cancel refused for its state of an order the API shows paid', ['order-answers'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000), cancel('1', 'admin', 2000, { status: 409, code: 'INVALID_ORDER_STATE' })],
    orders: [viaApi(order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 }))],
    apiOnly: true,
  }),
  passes('[near miss] a pay refused for its state of an order the API shows cancelled', {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 1000), refusedPay(2000)],
    orders: [viaApi(order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 1002 }))],
    apiOnly: true,
  }),
  passes('[near miss] a pay refused for its state of an order with no paid or closed time', {
    meta: meta(),
    ops: [bought, refusedPay(1000)],
    orders: [noTimes(order('1', 'a', 'ka', 5))],
    apiOnly: true,
  }),
  // Closed exactly by the refused pay's answer plus the allowance, or a millisecond later.
  passes('[near miss] a pay refused for its state, the order closed exactly at its answer plus the allowance', {
    meta: meta(),
    ops: [bought, refusedPay(2000), cancel('1', 'user', 2250)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 2010 + SKEW })],
  }),
  breaks(
    '[near miss] a pay refused for its state, the order closed a millisecond after the allowance',
    ['order-answers'],
    {
      meta: meta(),
      ops: [bought, refusedPay(2000), cancel('1', 'user', 2251)],
      orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 2010 + SKEW + 1 })],
    },
  ),
  // Paid exactly by the refused pay's answer plus the allowance.
  passes('[near miss] a pay refused for its state, the order paid exactly at its answer plus the allowance', {
    meta: meta(),
    ops: [bought, refusedPay(2000), webhook(2250, 'PAID')],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 2010 + SKEW })],
  }),
  // Due exactly by the refused pay's answer plus the allowance, or a millisecond later.
  passes('[near miss] a pay refused for its state, the order due exactly at its answer plus the allowance', {
    meta: meta(),
    ops: [bought, refusedPay(2000)],
    orders: [order('1', 'a', 'ka', 5, 'EXPIRED', { ttlMs: 2010 + SKEW - 5, closedAt: 5000 })],
  }),
  breaks(
    '[near miss] a pay refused for its state, the order due a millisecond after the allowance',
    ['order-answers'],
    {
      meta: meta(),
      ops: [bought, refusedPay(2000)],
      orders: [order('1', 'a', 'ka', 5, 'EXPIRED', { ttlMs: 2010 + SKEW - 4, closedAt: 5000 })],
    },
  ),
  // order-states: the buyer may cancel a paid order only if the cancel was sent before the pay's answer.
  passes('[near miss] a user cancel sent the instant the pay was answered, an admin cancel unanswered', {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000), cancel('1', 'admin', 1005, { error: 'TIMEOUT' }), cancel('1', 'user', 1010)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { paidAt: 1005, closedAt: 1015 })],
  }),
  breaks('[near miss] a user cancel sent a millisecond after the pay was answered', ['order-states'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000), cancel('1', 'admin', 1005, { error: 'TIMEOUT' }), cancel('1', 'user', 1011)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { paidAt: 1005, closedAt: 1015 })],
  }),
  // order-states: no pay sent after a cancel of the order was answered 200.
  passes('[near miss] a pay sent the instant an admin cancel was answered', {
    meta: meta(),
    ops: [bought, cancel('1', 'admin', 1000), pay('1', 'a', 1010)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { paidAt: 1012, closedAt: 1015 })],
  }),
  breaks('[near miss] a pay sent a millisecond after an admin cancel was answered', ['order-states'], {
    meta: meta(),
    ops: [bought, cancel('1', 'admin', 1000), pay('1', 'a', 1011)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { paidAt: 1012, closedAt: 1015 })],
  }),
];
