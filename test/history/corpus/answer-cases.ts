import { breaks, CorpusCase, passes } from './case';
import { buy, meta, order, poll, read } from '../support/records';

const pending = buy('a', 'ka', 0, { status: 202, code: 'PURCHASE_PENDING', completeMs: 2000 });
const created = poll('a', 'ka', 3000, { state: 'CREATED', orderId: '1' });

/** Family "poll answers other than PENDING/CREATED/REFUSED are not judged", and answers matched to their own request. */
export const answerCases: CorpusCase[] = [
  breaks('[poll answers] a 404 after a CREATED of the same purchase', ['purchase-answers'], {
    meta: meta(),
    ops: [pending, created, poll('a', 'ka', 4000, { status: 404, code: 'PURCHASE_NOT_FOUND' })],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  breaks("[poll answers] PENDING after the purchase's outcome was told", ['purchase-answers'], {
    meta: meta(),
    ops: [pending, created, poll('a', 'ka', 4000, { state: 'PENDING' })],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  passes('[poll answers] PENDING, then CREATED', {
    meta: meta(),
    ops: [pending, poll('a', 'ka', 2500, { state: 'PENDING' }), created],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  breaks('[poll answers] 422 IDEMPOTENCY_KEY_REUSED with no other request under the key', ['purchase-answers'], {
    meta: meta(),
    ops: [buy('a', 'kz', 0, { status: 422, code: 'IDEMPOTENCY_KEY_REUSED' })],
    orders: [],
  }),
  passes('[false refusals] a poll matched to its own request, not to the first record of its id (another request, answered 422)', {
    meta: meta({ perUserLimit: 2 }),
    ops: [buy('a', 'ka', 100, { status: 422, code: 'IDEMPOTENCY_KEY_REUSED' }, 2), pending, created],
    orders: [order('1', 'a', 'ka', 100)],
  }),
  passes('[false refusals] a pre-existing order expiring during the history gives its units back to reads', {
    meta: meta({ initialStock: 2, preexistingOrderIds: ['9'] }),
    ops: [read(2, 0), buy('a', 'ka', 1000, { status: 201, orderId: '1' }), read(1, 2000), read(2, 40_000)],
    orders: [order('9', 'z', 'kz', -100_000, 'EXPIRED', { closedAt: 30_000 }), order('1', 'a', 'ka', 1005)],
  }),
  passes('[false refusals] a pre-existing order cancelled during the history gives its units back to reads', {
    meta: meta({ initialStock: 2, preexistingOrderIds: ['9'] }),
    ops: [read(2, 0), read(3, 40_000)],
    orders: [order('9', 'z', 'kz', -10_000, 'CANCELLED', { closedAt: 30_000 })],
    require: [],
  }),
];
