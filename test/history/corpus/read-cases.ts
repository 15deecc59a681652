import { breaks, CorpusCase, passes } from './case';
import { buy, cancel, meta, order, read, setStock, viaApi } from '../support/records';

const first = buy('a', 'ka', 0, { status: 201, orderId: '1' });
const expired = order('1', 'a', 'ka', 5, 'EXPIRED', { closedAt: 60_005 });

/** Stock reads: every rise needs a return, every fall an order, every level the orders around it. */
export const readCases: CorpusCase[] = [
  breaks('one expiry excusing two rises (close time recorded)', ['reads-rise', 'reads-fall'], {
    meta: meta({ initialStock: 2 }),
    ops: [first, read(1, 2000), read(2, 62_000), read(1, 63_000), read(2, 64_000)],
    orders: [expired],
  }),
  breaks('one expiry excusing two rises (no close time)', ['reads-fall'], {
    meta: meta({ initialStock: 2 }),
    ops: [first, read(1, 2000), read(2, 62_000), read(1, 63_000), read(2, 64_000)],
    orders: [viaApi(expired)],
    apiOnly: true,
  }),
  breaks('a fall and two rises around one expiry and one order', ['reads-rise', 'reads-level'], {
    meta: meta({ initialStock: 2 }),
    ops: [first, read(1, 2000), read(2, 62_000), buy('b', 'kb', 62_500, { status: 201, orderId: '2' }), read(1, 63_000), read(2, 64_000)],
    orders: [expired, order('2', 'b', 'kb', 62_505)],
  }),
  passes('reads following an expiry and an order', {
    meta: meta({ initialStock: 2 }),
    ops: [first, read(1, 2000), read(2, 62_000), buy('b', 'kb', 62_500, { status: 201, orderId: '2' }), read(1, 63_000), read(1, 64_000)],
    orders: [expired, order('2', 'b', 'kb', 62_505)],
  }),
  breaks('a read showing units already sold', ['reads-level'], {
    meta: meta({ initialStock: 3 }),
    ops: [first, buy('b', 'kb', 0, { status: 201, orderId: '2' }), read(3, 2000)],
    orders: [order('1', 'a', 'ka', 5), order('2', 'b', 'kb', 5)],
  }),
  breaks('a fall of two with one order between', ['reads-fall'], {
    meta: meta({ initialStock: 3 }),
    ops: [read(3, -500), first, read(1, 2000)],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks('a rise after a stock set with nothing to explain it', ['reads-rise', 'reads-level'], {
    meta: meta({ initialStock: 3 }),
    ops: [setStock(5, -1000), first, read(4, 2000), read(5, 3000)],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  passes('a rise explained by a cancel between the reads', {
    meta: meta({ initialStock: 3 }),
    ops: [first, read(2, 2000), cancel('1', 'user', 2500), read(3, 3000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 2502 })],
  }),
  passes('a rise explained by a stock set between the reads', {
    meta: meta({ initialStock: 3 }),
    ops: [first, read(2, 2000), setStock(9, 2500), read(9, 3000)],
    orders: [order('1', 'a', 'ka', 5)],
  }),
];
