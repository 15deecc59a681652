import { breaks, CorpusCase, passes } from './case';
import { buy, join, meta, order, queuePoll, read, setStock } from '../support/records';

const admitted = (ticketId: string) => ({ ticketId, state: 'ADMITTED', position: 0, pollAfterMs: 5000 });
const waiting = (ticketId: string) => ({ ticketId, state: 'WAITING', position: 1, pollAfterMs: 500 });
const twoAdmitted = (stockSet: number) => ({
  meta: meta({ initialStock: 5 }),
  ops: [setStock(stockSet, 500), join('a', 600, waiting('1')), join('b', 610, waiting('2')), queuePoll('a', 1000, admitted('1')), queuePoll('b', 1000, admitted('2')), queuePoll('a', 2000, admitted('1')), queuePoll('b', 2000, admitted('2'))],
  orders: [],
  require: [],
});

/** Family "rules that stop at the first stock set": every rule judges after a set too, or says which stretch it could not. */
export const afterSetCases: CorpusCase[] = [
  breaks('[after a stock set] a read impossible after an answered set', ['reads-level'], {
    meta: meta({ initialStock: 3 }),
    ops: [setStock(2, 1000), buy('a', 'ka', 2000, { status: 201, orderId: '1' }), read(2, 3000)],
    orders: [order('1', 'a', 'ka', 2005)],
  }),
  passes('[after a stock set] a read that fits the set and the orders after it', {
    meta: meta({ initialStock: 3 }),
    ops: [setStock(2, 1000), buy('a', 'ka', 2000, { status: 201, orderId: '1' }), read(1, 3000)],
    orders: [order('1', 'a', 'ka', 2005)],
  }),
  passes('[after a stock set] a read during a set may show the stock before it or after it', {
    meta: meta({ initialStock: 3 }),
    ops: [setStock(9, 1000, { status: 200, completeMs: 2000 }), read(3, 1500), read(9, 1600), read(3, 1700)],
    orders: [],
    require: [],
  }),
  breaks('[after a stock set] admissions outnumbering the units a set put on sale', ['queue-stock'], twoAdmitted(1)),
  passes('[after a stock set] admissions within the units a set put on sale', twoAdmitted(2)),
  breaks('[after a stock set] reads after an unanswered set are not judged, and --require fails the rule', ['reads-rise'], {
    meta: meta({ initialStock: 3 }),
    ops: [read(3, 0), setStock(9, 1000, { error: 'TIMEOUT', completeMs: 11_000 }), read(9, 2000), read(1, 3000)],
    orders: [],
    require: ['reads-rise'],
  }),
  passes('[after a stock set] reads after an unanswered set, the rule not required', {
    meta: meta({ initialStock: 3 }),
    ops: [read(3, 0), setStock(9, 1000, { error: 'TIMEOUT', completeMs: 11_000 }), read(9, 2000), read(1, 3000)],
    orders: [],
    require: [],
  }),
];
