import { breaks, CorpusCase, passes } from './case';
import { buy, join, meta, order, queuePoll } from '../support/records';

const ticket = (state: string) => ({ ticketId: '1', state, position: state === 'WAITING' ? 1 : 0, pollAfterMs: 500 });

/** Family "admissions judged at a moment, not over the ticket's life". */
export const admissionLifeCases: CorpusCase[] = [
  breaks("[admission life] a purchase after the ticket was seen EXPIRED, with no new admission", ['queue-admitted'], {
    meta: meta(),
    ops: [join('a', 0, ticket('WAITING')), queuePoll('a', 1000, ticket('ADMITTED')), queuePoll('a', 5000, ticket('EXPIRED')), buy('a', 'ka', 6000, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 6005)],
  }),
  passes('[admission life] a purchase after EXPIRED and a new admission', {
    meta: meta(),
    ops: [
      join('a', 0, ticket('WAITING')),
      queuePoll('a', 1000, ticket('ADMITTED')),
      queuePoll('a', 5000, ticket('EXPIRED')),
      queuePoll('a', 5500, ticket('ADMITTED')),
      buy('a', 'ka', 6000, { status: 201, orderId: '1' }),
    ],
    orders: [order('1', 'a', 'ka', 6005)],
  }),
  passes('[admission life] an EXPIRED seen while the order was being made', {
    meta: meta(),
    ops: [join('a', 0, ticket('WAITING')), queuePoll('a', 1000, ticket('ADMITTED')), buy('a', 'ka', 4900, { status: 201, orderId: '1' }, 1, 200), queuePoll('a', 5000, ticket('EXPIRED'))],
    orders: [order('1', 'a', 'ka', 5000)],
  }),
];
