import { checkHistory } from './check-history';
import { FinalOrder, HISTORY_FORMAT, MetaRecord, OpRecord, parseHistory } from './format';
import { HistoryLog } from './writer';

const P = '9';
const meta: MetaRecord = {
  op: 'meta',
  format: HISTORY_FORMAT,
  products: [{ productId: P, initialStock: 1, perUserLimit: 1 }],
};
const join = (userId: string, t: number, answer: Partial<OpRecord>): OpRecord =>
  ({ op: 'queueJoin', productId: P, userId, invokeMs: t, completeMs: t + 5, ...answer }) as OpRecord;
const poll = (userId: string, t: number, answer: Partial<OpRecord>): OpRecord =>
  ({ op: 'queuePoll', productId: P, userId, invokeMs: t, completeMs: t + 5, ...answer }) as OpRecord;
const order: FinalOrder = {
  id: '1',
  productId: P,
  userId: 'a',
  quantity: 1,
  status: 'PENDING_PAYMENT',
  purchaseId: 'ka',
  createdAtMs: 2000,
  expiresAtMs: 62_000,
};

/** A sale of one unit through a waiting room: two buyers queue, one is admitted and buys. */
const sale = (): OpRecord[] => [
  join('a', 1000, { status: 200, ticketId: '1', state: 'WAITING', position: 1, pollAfterMs: 500 }),
  join('b', 1000, { status: 200, ticketId: '2', state: 'WAITING', position: 2, pollAfterMs: 700 }),
  poll('a', 1600, { status: 200, ticketId: '1', state: 'ADMITTED', position: 0, pollAfterMs: 9000 }),
  {
    op: 'purchase',
    productId: P,
    userId: 'a',
    quantity: 1,
    key: 'ka',
    purchaseId: 'ka',
    status: 201,
    orderId: '1',
    invokeMs: 1990,
    completeMs: 2010,
  },
  poll('b', 2100, { status: 200, ticketId: '2', state: 'SOLD_OUT', position: 0, pollAfterMs: 30_000 }),
  join('c', 2200, { status: 409, code: 'SOLD_OUT' }),
  poll('b', 2300, { error: 'TIMEOUT', completeMs: 12_300 }),
];

describe('queue records in a history', () => {
  it('are read back from a file and change nothing the stock rules count', () => {
    const log = new HistoryLog('test', meta.products);
    for (const op of sale()) log.add(op);
    const { ops } = parseHistory(log.toJsonl());
    expect(ops.map((op) => op.op)).toEqual([
      'queueJoin',
      'queueJoin',
      'queuePoll',
      'purchase',
      'queuePoll',
      'queueJoin',
      'queuePoll',
    ]);
    const check = checkHistory(meta, ops, [order], { finalReadAtMs: 100_000 });
    expect(check.rules.filter((r) => !r.ok)).toEqual([]);
    expect(check.figures).toMatchObject({ purchases: 1, created: 1, orders: 1 });
  });

  it('are held to "no 5xx other than 503"', () => {
    const ops = [...sale(), poll('b', 2400, { status: 500, code: 'INTERNAL' })];
    const check = checkHistory(meta, ops, [order], { finalReadAtMs: 100_000 });
    expect(check.rules.filter((r) => !r.ok).map((r) => [r.rule, r.examples])).toEqual([
      ['no 5xx other than 503', [expect.stringMatching(/^queuePoll .*500 INTERNAL/)]],
    ]);
  });
});
