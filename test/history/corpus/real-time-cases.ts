import { breaks, CorpusCase, passes } from './case';
import { buy, cancel, join, meta, order, pay, queuePoll } from '../support/records';

/** Family "a 201 judged only for the existence of its order, not for when it was made": no answer precedes its effect. */
export const realTimeCases: CorpusCase[] = [
  breaks('[real time] a 201 answered before its order was created, a later retry explaining the order', ['real-time'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), buy('a', 'ka', 1500, { error: 'TIMEOUT', completeMs: 11_500 })],
    orders: [order('1', 'a', 'ka', 2000)],
  }),
  passes('[real time] a 201 answered within the clock allowance of its creation', {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' })],
    orders: [order('1', 'a', 'ka', 200)],
  }),
  breaks('[real time] a payment answered PAID before the database recorded it paid', ['real-time'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), pay('1', 'a', 1000)],
    orders: [order('1', 'a', 'ka', 5, 'PAID', { paidAt: 5000 })],
  }),
  breaks('[real time] a cancel answered before the database recorded it closed', ['real-time'], {
    meta: meta(),
    ops: [buy('a', 'ka', 0, { status: 201, orderId: '1' }), cancel('1', 'user', 1000)],
    orders: [order('1', 'a', 'ka', 5, 'CANCELLED', { closedAt: 5000 })],
  }),
  breaks('[real time] a ticket answered BOUGHT before its user had an order', ['real-time'], {
    meta: meta(),
    ops: [
      join('a', 0, { ticketId: '1', state: 'WAITING', position: 1 }),
      queuePoll('a', 1000, { ticketId: '1', state: 'ADMITTED', position: 0 }),
      queuePoll('a', 1500, { ticketId: '1', state: 'BOUGHT', position: 0 }),
      buy('a', 'ka', 3000, { status: 201, orderId: '1' }),
    ],
    orders: [order('1', 'a', 'ka', 3005)],
  }),
];
