import { breaks, CorpusCase, passes } from './case';
import { buy, meta, order, poll } from '../support/records';

/** The clock allowance the corpus is judged with (checkHistory's default). */
const SKEW = 250;
const timeoutAt = (t: number) => buy('a', 'ka', t, { error: 'TIMEOUT', completeMs: t + 10_000 });

/**
 * Family "near misses, purchases, reads and queues": for each of those rules, a history that sits
 * just inside what it allows beside one just outside, so that a rule which judged a clause loosely
 * or not at all would be seen.
 */
export const nearMissPurchaseCases: CorpusCase[] = [
  passes('[near miss] an order made by a request sent exactly the allowance after its creation', {
    meta: meta(),
    ops: [timeoutAt(1000 + SKEW)],
    orders: [order('1', 'a', 'ka', 1000)],
  }),
  breaks('[near miss] an order whose only request was sent one ms more than the allowance after it', ['explained'], {
    meta: meta(),
    ops: [timeoutAt(1001 + SKEW)],
    orders: [order('1', 'a', 'ka', 1000)],
  }),
  breaks('[near miss] an order made while a 409 sent exactly the allowance after its creation ran', ['refusals'], {
    meta: meta(),
    ops: [buy('a', 'ka', 1000 + SKEW, { status: 409, code: 'SOLD_OUT' })],
    orders: [order('1', 'a', 'ka', 1000)],
  }),
  breaks(
    '[near miss] an order no request made, beside a 409 sent one ms after it could have',
    ['explained', 'outcome'],
    {
      meta: meta(),
      ops: [buy('a', 'ka', 1001 + SKEW, { status: 409, code: 'SOLD_OUT' })],
      orders: [order('1', 'a', 'ka', 1000)],
    },
  ),
  passes('[near miss] a retry refused 409 exactly when its order surely existed', {
    meta: meta(),
    ops: [timeoutAt(900), buy('a', 'ka', 1000 + SKEW, { status: 409, code: 'SOLD_OUT' })],
    orders: [order('1', 'a', 'ka', 1000)],
  }),
  breaks('[near miss] a retry refused 409 one ms after its order surely existed', ['outcome'], {
    meta: meta(),
    ops: [timeoutAt(900), buy('a', 'ka', 1001 + SKEW, { status: 409, code: 'SOLD_OUT' })],
    orders: [order('1', 'a', 'ka', 1000)],
  }),
  passes('[near miss] a 409 answered exactly the allowance before the order its retry made', {
    meta: meta(),
    ops: [buy('a', 'ka', 700, { status: 409, code: 'SOLD_OUT' }, 1, 50), timeoutAt(900)],
    orders: [order('1', 'a', 'ka', 1000)],
  }),
  breaks('[near miss] a 409 answered one ms more than the allowance before the order its retry made', ['outcome'], {
    meta: meta(),
    ops: [buy('a', 'ka', 699, { status: 409, code: 'SOLD_OUT' }, 1, 50), timeoutAt(900)],
    orders: [order('1', 'a', 'ka', 1000)],
  }),
  passes('[near miss] a late 422 under a bought key that asked for another quantity', {
    meta: meta({ perUserLimit: 3 }),
    ops: [
      buy('a', 'ka', 0, { status: 201, orderId: '1' }),
      buy('a', 'ka', 1000, { status: 422, code: 'IDEMPOTENCY_KEY_REUSED' }, 2),
    ],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  breaks('[near miss] a late 422 under a bought key that asked for the same thing', ['outcome', 'purchase-answers'], {
    meta: meta({ perUserLimit: 3 }),
    ops: [
      buy('a', 'ka', 0, { status: 201, orderId: '1' }),
      buy('a', 'ka', 1000, { status: 422, code: 'IDEMPOTENCY_KEY_REUSED' }, 1),
    ],
    orders: [order('1', 'a', 'ka', 5)],
  }),
  passes("[near miss] a CREATED poll naming an order of its 202's two units", {
    meta: meta({ perUserLimit: 3 }),
    ops: [
      buy('a', 'ka', 0, { status: 202, code: 'PURCHASE_PENDING', completeMs: 2000 }, 2),
      poll('a', 'ka', 5000, { state: 'CREATED', orderId: '1' }),
    ],
    orders: [order('1', 'a', 'ka', 100, 'PENDING_PAYMENT', { quantity: 2 })],
  }),
  breaks('[near miss] a CREATED poll naming an order of one unit, its 202 asked for two', ['durable'], {
    meta: meta({ perUserLimit: 3 }),
    ops: [
      buy('a', 'ka', 0, { status: 202, code: 'PURCHASE_PENDING', completeMs: 2000 }, 2),
      poll('a', 'ka', 5000, { state: 'CREATED', orderId: '1' }),
    ],
    orders: [order('1', 'a', 'ka', 100)],
  }),
];
