import { breaks, CorpusCase, passes } from './case';
import { buy, cancel, meta, order, pay } from '../support/records';

const bought = buy('a', 'ka', 0, { status: 201, orderId: '1' });
const webhook = (t: number, result: string) => pay('1', 'a', t, { status: 200, result, userId: undefined });

/** Family "order life": a state machine over the database's timestamps and the recorded answers. */
export const orderLifeCases: CorpusCase[] = [
  breaks('[order life] a cancelled order later paid', ['order-states'], {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 1000), pay('1', 'a', 2000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 1002, paidAt: 2002 })],
  }),
  breaks('[order life] paid after its recorded close, by a pay sent before the cancel', ['order-states'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 900, { error: 'TIMEOUT', completeMs: 10_900 }), cancel('1', 'admin', 1000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 1002, paidAt: 3000 })],
  }),
  breaks('[order life] two webhook deliveries both answered PAID for one order', ['order-states'], {
    meta: meta(),
    ops: [bought, webhook(1000, 'PAID'), webhook(3000, 'PAID')],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 })],
  }),
  passes('[order life] a webhook delivered twice, the second ALREADY_PROCESSED', {
    meta: meta(),
    ops: [bought, webhook(1000, 'PAID'), webhook(3000, 'ALREADY_PROCESSED')],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 })],
  }),
  breaks('[order life] a payment answered PAID that the database never recorded', ['order-states'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000), cancel('1', 'admin', 2000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 2002, paidAt: null })],
  }),
  breaks('[order life] someone else paid the order, answered 200', ['order-actors'], {
    meta: meta(),
    ops: [bought, pay('1', 'b', 1000)],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 })],
  }),
  breaks('[order life] someone else cancelled the order as its user, answered 200', ['order-actors'], {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 1000, { status: 200, orderStatus: 'CANCELLED', userId: 'b' })],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 1002 })],
  }),
  passes('[order life] an admin cancelled the order', {
    meta: meta(),
    ops: [bought, cancel('1', 'admin', 1000, { status: 200, orderStatus: 'CANCELLED', userId: 'ops' })],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 1002 })],
  }),
  breaks('[order life] a pay refused INVALID_ORDER_STATE while the order was surely pending', ['order-answers'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000, { status: 409, code: 'INVALID_ORDER_STATE' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  passes('[order life] a pay refused INVALID_ORDER_STATE after the order was cancelled', {
    meta: meta(),
    ops: [bought, cancel('1', 'user', 1000), pay('1', 'a', 2000, { status: 409, code: 'INVALID_ORDER_STATE' })],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 1002 })],
  }),
  breaks('[order life] an admin cancel refused INVALID_ORDER_STATE of a paid order', ['order-answers'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000), cancel('1', 'admin', 2000, { status: 409, code: 'INVALID_ORDER_STATE' })],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 })],
  }),
  breaks('[order life] ORDER_NOT_PAYABLE for an order surely pending', ['order-answers'], {
    meta: meta(),
    ops: [bought, webhook(1000, 'ORDER_NOT_PAYABLE')],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks('[order life] ALREADY_PROCESSED with no earlier delivery', ['order-answers'], {
    meta: meta(),
    ops: [bought, webhook(1000, 'ALREADY_PROCESSED')],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks("[order life] a pay of the buyer's own order answered FORBIDDEN", ['order-answers'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000, { status: 403, code: 'FORBIDDEN' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks('[order life] a pay answered 200 with the order still PENDING_PAYMENT', ['order-answers'], {
    meta: meta(),
    ops: [bought, pay('1', 'a', 1000, { status: 200, orderStatus: 'PENDING_PAYMENT' })],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 1002 })],
  }),
];
