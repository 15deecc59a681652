import { breaks, CorpusCase, passes } from './case';
import { buy, meta, order, poll } from '../support/records';

/** Every answer to a purchase id tells the one truth of that purchase. */
export const purchaseCases: CorpusCase[] = [
  breaks('a replay of a bought key answered 409', ['outcome'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('a', 'ka', 5000, { status: 409, code: 'SOLD_OUT' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  passes('a replay of a bought key answered with its order', {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('a', 'ka', 5000, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks('a retry after a timeout answered 409 while the first attempt made the order', ['outcome'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { error: 'TIMEOUT', completeMs: 10_000 }), buy('a', 'ka', 10_500, { status: 409, code: 'SOLD_OUT' })],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  passes('a retry after a timeout refused 503 while the first attempt made the order', {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { error: 'TIMEOUT', completeMs: 10_000 }), buy('a', 'ka', 10_500, { status: 503, code: 'OVERLOADED' })],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  breaks('a key refused 409 that got an order later', ['outcome'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 409, code: 'SOLD_OUT' }), buy('a', 'ka', 70_000, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 70_005)],
  }),
  passes('a key refused 503, then bought on the retry', {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 503, code: 'OVERLOADED' }), buy('a', 'ka', 700, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 705)],
  }),
  breaks('a 202 whose poll said REFUSED, and the purchase has an order', ['refusals', 'outcome'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 202, code: 'PURCHASE_PENDING', completeMs: 2000 }), poll('a', 'ka', 5000, { state: 'REFUSED', code: 'SOLD_OUT' })],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  passes('a 202 whose poll said CREATED with its order', {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 202, code: 'PURCHASE_PENDING', completeMs: 2000 }), poll('a', 'ka', 5000, { state: 'CREATED', orderId: '1' })],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  breaks('a 201 naming an order of another product', ['durable'], {
    meta: { ...meta(), products: [...meta().products, { productId: '8', initialStock: 3, perUserLimit: 1 }] },
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' })],
    orders: [{ ...order('1', 'a', 'ka', 5), productId: '8' }],
  }),
  breaks('a 201 naming an order of another quantity', ['durable'], {
    meta: meta({ perUserLimit: 3 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 5, 'PENDING_PAYMENT', { quantity: 2 })],
  }),
  passes('a 201 naming its order of two units', {
    meta: meta({ perUserLimit: 3 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }, 2)],
    orders: [order('1', 'a', 'ka', 5, 'PENDING_PAYMENT', { quantity: 2 })],
  }),
  breaks('a 503 whose purchase was made while it ran', ['refusals'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 503, code: 'DEPENDENCY_UNAVAILABLE', completeMs: 3000 })],
    orders: [order('1', 'a', 'ka', 200)],
  }),
  breaks('an order no request of the history asked for', ['explained'], {
    meta: meta({ perUserLimit: 2 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 5), order('2', 'a', 'kq', 500)],
  }),
  breaks('a 201 whose order is missing', ['durable'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' })],
    orders: [],
  }),
  breaks('two orders for one purchase id', ['outcome'], {
    meta: meta({ perUserLimit: 2 }),
    ops: [buy('a', 'ka', 0, { error: 'ECONNRESET' }), buy('a', 'ka', 100, { error: 'TIMEOUT', completeMs: 10_100 })],
    orders: [order('1', 'a', 'ka', 5), { ...order('2', 'a', 'ka', 105), purchaseId: 'ka' }],
    // (user, purchase id) is unique in the database: only a final state read elsewhere can show this.
    apiOnly: true,
  }),
  breaks('a history with no purchase at all', ['outcome', 'no-5xx'], { meta: meta(), ops: [], orders: [] }),
  breaks('an answer 500', ['no-5xx'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('b', 'kb', 100, { status: 500, code: 'INTERNAL' })],
    orders: [order('1', 'a', 'ka', 5)],
  }),
];

