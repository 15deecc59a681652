import { createHmac } from 'node:crypto';
import { breaks, CorpusCase, passes } from './case';
import { buy, join, meta, order, queuePoll, T0 } from '../support/records';

const waiting = (ticketId: string, position: number) => ({ ticketId, state: 'WAITING', position, pollAfterMs: 500 });
const admitted = (ticketId: string) => ({ ticketId, state: 'ADMITTED', position: 0, pollAfterMs: 5000 });
const SEED = '5eed'.repeat(16);
const rank = (ticketId: string) => createHmac('sha256', Buffer.from(SEED, 'hex')).update(ticketId, 'utf8').digest('hex');
/** Two pre-queue tickets, in the order the published seed puts them. */
const [ahead, behind] = ['pq-1', 'pq-2'].sort((x, y) => (rank(x) < rank(y) ? -1 : 1));
const preQueue = (firstAdmitted: string, secondAdmitted: string) => ({
  meta: meta({ initialStock: 3, waitingRoom: { saleStartsAtMs: T0 + 1000, seed: SEED } }),
  ops: [
    join('a', 0, waiting(ahead, 1)),
    join('b', 10, waiting(behind, 2)),
    queuePoll(firstAdmitted === ahead ? 'a' : 'b', 2000, admitted(firstAdmitted)),
    queuePoll(secondAdmitted === ahead ? 'a' : 'b', 2500, waiting(secondAdmitted, 1)),
    queuePoll(secondAdmitted === ahead ? 'a' : 'b', 3000, admitted(secondAdmitted)),
  ],
  orders: [],
  require: [],
});

/** The waiting room: admission before purchase, in ticket order, never more than the stock for sale. */
export const queueCases: CorpusCase[] = [
  breaks('a purchase on a queued product without an admission', ['queue-admitted'], {
    meta: meta(),
    ops: [join('a', 0, waiting('1', 1)), buy('a', 'ka', 2000, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 2005)],
  }),
  passes('a purchase after its admission', {
    meta: meta(),
    ops: [join('a', 0, waiting('1', 1)), queuePoll('a', 1000, admitted('1')), buy('a', 'ka', 2000, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 2005)],
  }),
  breaks('a later ticket admitted while an earlier one waited', ['queue-order'], {
    meta: meta(),
    ops: [join('a', 0, waiting('1', 1)), join('b', 10, waiting('2', 2)), queuePoll('b', 1000, admitted('2')), queuePoll('a', 1100, waiting('1', 1)), queuePoll('a', 3000, admitted('1'))],
    orders: [],
    require: [],
  }),
  breaks('pre-queue tickets admitted against the published seed', ['queue-order'], preQueue(behind, ahead)),
  passes('pre-queue tickets admitted in the order of the published seed', preQueue(ahead, behind)),
  breaks('two admissions outstanding for one unit', ['queue-stock'], {
    meta: meta({ initialStock: 1 }),
    ops: [
      join('a', 0, waiting('1', 1)),
      join('b', 10, waiting('2', 2)),
      queuePoll('a', 1000, admitted('1')),
      queuePoll('b', 1000, admitted('2')),
      queuePoll('a', 2000, admitted('1')),
      queuePoll('b', 2000, admitted('2')),
    ],
    orders: [],
    require: [],
  }),
  passes('two admissions outstanding for two units', {
    meta: meta({ initialStock: 2 }),
    ops: [
      join('a', 0, waiting('1', 1)),
      join('b', 10, waiting('2', 2)),
      queuePoll('a', 1000, admitted('1')),
      queuePoll('b', 1000, admitted('2')),
      queuePoll('a', 2000, admitted('1')),
      buy('a', 'ka', 2100, { status: 201, orderId: '1' }),
      queuePoll('b', 2000, admitted('2')),
      buy('b', 'kb', 2100, { status: 201, orderId: '2' }),
    ],
    orders: [order('1', 'a', 'ka', 2105), order('2', 'b', 'kb', 2105)],
  }),
];
