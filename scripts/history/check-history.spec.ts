import { checkHistory, HistoryCheck } from './check-history';
import { FinalOrder, HISTORY_FORMAT, MetaRecord, OpRecord, parseHistory } from './format';
import { HistoryLog } from './writer';
import { readRecord, SPEC_PRODUCT } from './spec-records';

const P = SPEC_PRODUCT;
const meta = (initialStock = 3, perUserLimit = 1): MetaRecord => ({
  op: 'meta',
  format: HISTORY_FORMAT,
  products: [{ productId: P, initialStock, perUserLimit }],
});
const buy = (userId: string, key: string, t: number, answer: Partial<OpRecord> & { orderId?: string }): OpRecord =>
  ({
    op: 'purchase',
    productId: P,
    userId,
    quantity: 1,
    key,
    purchaseId: key,
    invokeMs: t,
    completeMs: t + 10,
    ...answer,
  }) as OpRecord;
const order = (
  id: string,
  userId: string,
  key: string,
  createdAtMs: number,
  status: FinalOrder['status'] = 'PENDING_PAYMENT',
): FinalOrder => ({
  id,
  productId: P,
  userId,
  quantity: 1,
  status,
  purchaseId: key,
  createdAtMs,
  expiresAtMs: createdAtMs + 60_000,
});
const read = readRecord;
const failed = (check: HistoryCheck): string[] => check.rules.filter((r) => !r.ok).map((r) => r.rule);
const run = (ops: OpRecord[], orders: FinalOrder[], m = meta()) =>
  checkHistory(m, ops, orders, { finalReadAtMs: 10_000_000, require: [] });

/** A history where every rule has something to judge, and all is well. */
function cleanSale(): { ops: OpRecord[]; orders: FinalOrder[] } {
  const ops: OpRecord[] = [
    read(3, 900),
    buy('a', 'ka', 1000, { status: 201, orderId: '1' }),
    buy('b', 'kb', 1000, { status: 503, code: 'OVERLOADED' }),
    buy('b', 'kb', 1500, { status: 201, orderId: '2' }),
    // no answer; it did commit: an unknown may resolve either way
    buy('c', 'kc', 1100, { error: 'TIMEOUT', completeMs: 11_100 }),
    // no answer; it did not commit
    buy('d', 'kd', 1100, { status: 202, code: 'PURCHASE_PENDING', completeMs: 2000 }),
    {
      op: 'poll',
      purchaseId: 'kd',
      userId: 'd',
      state: 'REFUSED',
      code: 'SOLD_OUT',
      status: 200,
      invokeMs: 3000,
      completeMs: 3010,
    },
    read(0, 3100),
    buy('e', 'ke', 3200, { status: 409, code: 'SOLD_OUT' }),
    { op: 'pay', orderId: '1', userId: 'a', status: 200, orderStatus: 'PAID', invokeMs: 4000, completeMs: 4010 },
    {
      op: 'cancel',
      orderId: '2',
      actor: 'user',
      userId: 'b',
      status: 200,
      orderStatus: 'CANCELLED',
      invokeMs: 4000,
      completeMs: 4010,
    },
    read(1, 5000),
    // order 3 expires after its expiresAt (61_150): the stock may rise with no request at all
    read(2, 70_000),
  ];
  const orders = [
    order('1', 'a', 'ka', 1005, 'PAID'),
    order('2', 'b', 'kb', 1505, 'CANCELLED'),
    order('3', 'c', 'kc', 1150, 'EXPIRED'),
  ];
  return { ops, orders };
}

describe('checkHistory', () => {
  it('passes a clean history, with every rule judging something', () => {
    const { ops, orders } = cleanSale();
    const check = run(ops, orders);
    expect(failed(check)).toEqual([]);
    for (const rule of check.rules.filter((r) => r.rule !== 'no 5xx other than 503'))
      expect([rule.rule, rule.checked > 0]).toEqual([rule.rule, true]);
    expect(check.figures).toMatchObject({ ops: ops.length, purchases: 6, created: 2, indeterminate: 2, orders: 3 });
  });

  it('catches an oversell: more live units than the initial stock', () => {
    const ops = ['a', 'b', 'c', 'd'].map((u, i) => buy(u, `k${u}`, 1000, { status: 201, orderId: String(i + 1) }));
    const orders = ['a', 'b', 'c', 'd'].map((u, i) => order(String(i + 1), u, `k${u}`, 1005));
    expect(failed(run(ops, orders))).toEqual(['units sold <= initial stock + admin stock changes']);
  });

  it('catches a lie: a 503 whose purchase has an order made while it ran', () => {
    const ops = [buy('a', 'ka', 1000, { status: 503, code: 'DEPENDENCY_UNAVAILABLE', completeMs: 3000 })];
    expect(failed(run(ops, [order('1', 'a', 'ka', 1200)]))).toEqual([
      'no refused purchase has an order (now or later)',
    ]);
  });

  it('catches a lie a later replay would hide: 503, then the retry is answered 201 with the order the 503 made', () => {
    const ops = [
      buy('a', 'ka', 1000, { status: 503, code: 'DEPENDENCY_UNAVAILABLE', completeMs: 3000 }),
      buy('a', 'ka', 3800, { status: 201, orderId: '1' }),
    ];
    expect(failed(run(ops, [order('1', 'a', 'ka', 1200)]))).toEqual([
      'no refused purchase has an order (now or later)',
    ]);
  });

  it('catches a lie of a 409 and of a poll that said REFUSED', () => {
    const ops = [buy('a', 'ka', 1000, { status: 409, code: 'SOLD_OUT' })];
    expect(failed(run(ops, [order('1', 'a', 'ka', 1003)]))).toEqual([
      'no refused purchase has an order (now or later)',
    ]);
    const polled = [
      buy('b', 'kb', 1000, { status: 202, code: 'PURCHASE_PENDING' }),
      {
        op: 'poll',
        purchaseId: 'kb',
        userId: 'b',
        status: 200,
        state: 'REFUSED',
        invokeMs: 2000,
        completeMs: 2010,
      } as OpRecord,
    ];
    expect(failed(run(polled, [order('2', 'b', 'kb', 1003)]))).toEqual([
      'no refused purchase has an order (now or later)',
      'one outcome per purchase id',
    ]);
  });

  it('catches a lost 201: answered with an order the final state does not have', () => {
    const ops = [buy('a', 'ka', 1000, { status: 201, orderId: '1' })];
    expect(failed(run(ops, []))).toEqual(['every 201 is in the final state']);
  });

  it('catches two orders for one purchase id', () => {
    const ops = [buy('a', 'ka', 1000, { error: 'ECONNRESET' }), buy('a', 'ka', 1100, { error: 'TIMEOUT' })];
    const check = run(ops, [order('1', 'a', 'ka', 1005), order('2', 'a', 'ka', 1105)], meta(3, 2));
    expect(failed(check)).toEqual(['one outcome per purchase id']);
  });

  it('catches PAID → EXPIRED', () => {
    const ops = [
      buy('a', 'ka', 1000, { status: 201, orderId: '1' }),
      { op: 'pay', orderId: '1', status: 200, orderStatus: 'PAID', invokeMs: 2000, completeMs: 2010 } as OpRecord,
    ];
    expect(failed(run(ops, [order('1', 'a', 'ka', 1005, 'EXPIRED')]))).toEqual(['order states only along legal edges']);
  });

  it('catches a stock read going up with nothing that could give units back', () => {
    const ops = [read(3, 900), buy('a', 'ka', 1000, { status: 201, orderId: '1' }), read(2, 1100), read(3, 1200)];
    expect(failed(run(ops, [order('1', 'a', 'ka', 1005)]))).toEqual([
      'stock reads go up only by a cancel, expiry or restock between them',
      'no stock read shows more than was left for sale',
    ]);
  });

  it('lets a rise through when a cancel overlapping the two reads explains it, or a stock set does', () => {
    const cancel: OpRecord = {
      op: 'cancel',
      orderId: '1',
      actor: 'user',
      status: 200,
      invokeMs: 1150,
      completeMs: 1300,
    };
    const ops = [buy('a', 'ka', 1000, { status: 201, orderId: '1' }), read(2, 1100), cancel, read(3, 1200)];
    expect(failed(run(ops, [order('1', 'a', 'ka', 1005, 'CANCELLED')]))).toEqual([]);
    const set: OpRecord = { op: 'setStock', productId: P, stock: 9, status: 200, invokeMs: 1150, completeMs: 1160 };
    expect(failed(run([read(2, 1000), set, read(9, 1200)], []))).toEqual([]);
    // ...but not a set that was over before the first read began
    expect(failed(run([set, read(2, 1300), read(9, 1400)], []))).toEqual([
      'stock reads go up only by a cancel, expiry or restock between them',
    ]);
  });

  it('counts admin stock sets in the oversell bound, and catches the per-user limit', () => {
    const set: OpRecord = { op: 'setStock', productId: P, stock: 5, status: 200, invokeMs: 500, completeMs: 510 };
    const ops = [
      set,
      ...['a', 'b', 'c', 'd'].map((u, i) => buy(u, `k${u}`, 1000, { status: 201, orderId: String(i + 1) })),
    ];
    expect(
      failed(
        run(
          ops,
          ['a', 'b', 'c', 'd'].map((u, i) => order(String(i + 1), u, `k${u}`, 1005)),
        ),
      ),
    ).toEqual([]);
    const twice = [
      buy('a', 'k1', 1000, { status: 201, orderId: '1' }),
      buy('a', 'k2', 1000, { status: 201, orderId: '2' }),
    ];
    expect(failed(run(twice, [order('1', 'a', 'k1', 1005), order('2', 'a', 'k2', 1005)]))).toEqual([
      'per-user limit over live orders',
    ]);
  });

  it('round-trips through the JSON lines a writer saves (the speed on 100k: test/history/speed.spec.ts)', () => {
    const log = new HistoryLog('spec', [{ productId: P, initialStock: 50_000, perUserLimit: 1 }]);
    const orders: FinalOrder[] = [];
    for (let n = 0; n < 10_000; n++) {
      const t = 1000 + n;
      if (n % 2 === 0) {
        log.add(buy(`u${n}`, `k${n}`, t, { status: 201, orderId: String(n) }));
        orders.push(order(String(n), `u${n}`, `k${n}`, t + 2));
      } else if (n % 10 === 1) log.add(read(50_000 - n / 2, t));
      else log.add(buy(`u${n}`, `k${n}`, t, { status: 409, code: 'SOLD_OUT' }));
    }
    const { meta: parsedMeta, ops } = parseHistory(log.toJsonl());
    const check = checkHistory(parsedMeta, ops, orders, { finalReadAtMs: 10_000_000 });
    expect(failed(check)).toEqual([]);
    expect(check.figures.ops).toBe(10_000);
  });

  it('refuses a file that is not a history', () => {
    expect(() => parseHistory('{"op":"purchase","invokeMs":1,"completeMs":2}\n')).toThrow(/no meta record/);
    expect(() => parseHistory('not json\n')).toThrow(/line 1: not JSON/);
  });
});

describe('--require all', () => {
  const sale = () => [buy('a', 'ka', 1000, { status: 201, orderId: '1' }), read(2, 2000)];
  const check = (ops: OpRecord[]) =>
    checkHistory(meta(), ops, [order('1', 'a', 'ka', 1005)], { finalReadAtMs: 10_000_000, require: ['all'] });

  it('does not require the pay and cancel rules of a history with neither', () => {
    const result = check(sale());
    expect(failed(result)).not.toContain("only the order's user or an admin pays or cancels it");
    expect(failed(result)).not.toContain('every pay and cancel answer is true');
    const orderRules = result.rules.filter((r) => r.id === 'order-actors' || r.id === 'order-answers');
    expect(orderRules.map((r) => [r.id, r.required])).toEqual([
      ['order-actors', false],
      ['order-answers', false],
    ]);
  });

  it('requires them once the history pays or cancels', () => {
    const pay = {
      op: 'pay',
      orderId: '1',
      userId: 'a',
      status: 200,
      orderStatus: 'PAID',
      invokeMs: 3000,
      completeMs: 3010,
    };
    const result = check([...sale(), pay as OpRecord]);
    expect(
      result.rules.filter((r) => r.id === 'order-actors' || r.id === 'order-answers').every((r) => r.required),
    ).toBe(true);
  });
});
