import { breaks, CorpusCase, passes } from './case';
import { buy, cancel, meta, order, setStock } from '../support/records';

const users = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `u${from + i}`);

/** Units held at every instant, and per user. */
export const unitCases: CorpusCase[] = [
  breaks('two orders for one unit, one expired a minute later', ['units'], {
    meta: meta({ initialStock: 1 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('b', 'kb', 10_000, { status: 201, orderId: '2' })],
    orders: [order('1', 'a', 'ka', 5, 'EXPIRED'), order('2', 'b', 'kb', 10_005)],
  }),
  passes('the second order of one unit made after the first expired', {
    meta: meta({ initialStock: 1 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('b', 'kb', 61_000, { status: 201, orderId: '2' })],
    orders: [order('1', 'a', 'ka', 5, 'EXPIRED'), order('2', 'b', 'kb', 61_005)],
  }),
  breaks('twelve units sold of five, then the stock set to five', ['units'], {
    meta: meta({ initialStock: 5 }),
    ops: [...users(12).map((u, i) => buy(u, `k${u}`, 1000 + i * 10, { status: 201, orderId: String(i + 1) })), setStock(5, 5000)],
    orders: users(12).map((u, i) => order(String(i + 1), u, `k${u}`, 1005 + i * 10)),
  }),
  passes('five sold, the stock set to five, five more sold', {
    meta: meta({ initialStock: 5 }),
    ops: [
      ...users(5).map((u, i) => buy(u, `k${u}`, 1000 + i * 10, { status: 201, orderId: String(i + 1) })),
      setStock(5, 5000),
      ...users(5, 5).map((u, i) => buy(u, `k${u}`, 6000 + i * 10, { status: 201, orderId: String(i + 6) })),
    ],
    orders: [...users(5).map((u, i) => order(String(i + 1), u, `k${u}`, 1005 + i * 10)), ...users(5, 5).map((u, i) => order(String(i + 6), u, `k${u}`, 6005 + i * 10))],
  }),
  breaks('a stock set to 0 that never answered, then eight sold of five', ['units'], {
    meta: meta({ initialStock: 5 }),
    ops: [setStock(0, 500, { error: 'TIMEOUT', completeMs: 10_500 }), ...users(8).map((u, i) => buy(u, `k${u}`, 1000 + i * 10, { status: 201, orderId: String(i + 1) }))],
    orders: users(8).map((u, i) => order(String(i + 1), u, `k${u}`, 1005 + i * 10)),
  }),
  passes('a stock set to 3 that never answered, then eight sold of five', {
    meta: meta({ initialStock: 5 }),
    ops: [setStock(3, 500, { error: 'TIMEOUT', completeMs: 10_500 }), ...users(8).map((u, i) => buy(u, `k${u}`, 1000 + i * 10, { status: 201, orderId: String(i + 1) }))],
    orders: users(8).map((u, i) => order(String(i + 1), u, `k${u}`, 1005 + i * 10)),
  }),
  breaks('an oversell a cancel undid later', ['units'], {
    meta: meta({ initialStock: 1 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('b', 'kb', 1000, { status: 201, orderId: '2' }), cancel('1', 'admin', 30_000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 30_002 }), order('2', 'b', 'kb', 1005)],
  }),
  breaks('a user held two units of a one-per-user product until one was cancelled', ['per-user'], {
    meta: meta({ initialStock: 3 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('a', 'kb', 10_000, { status: 201, orderId: '2' }), cancel('1', 'user', 60_000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 60_005 }), order('2', 'a', 'kb', 10_005)],
  }),
  passes('a user bought again after cancelling', {
    meta: meta({ initialStock: 3 }),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), cancel('1', 'user', 5_000), buy('a', 'kb', 10_000, { status: 201, orderId: '2' })],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 5_005 }), order('2', 'a', 'kb', 10_005)],
  }),
];
