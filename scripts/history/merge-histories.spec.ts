import { checkHistory } from './check-history';
import { toReferenceClock } from './clock-shift';
import { FinalOrder, GeneratorRun, HISTORY_FORMAT, MetaRecord, OpRecord } from './format';
import { HistoryPart, mergeHistories } from './merge-histories';
import { readRecord, SPEC_PRODUCT } from './spec-records';

const P = SPEC_PRODUCT;
const AGAINST = 'date-header http://api:3000';

const part = (
  file: string,
  run: Partial<GeneratorRun> & { offsetMs: number; uncertaintyMs: number },
  ops: OpRecord[],
  products = [{ productId: P, initialStock: 3, perUserLimit: 1 }],
): HistoryPart => {
  const { offsetMs, uncertaintyMs, ...rest } = run;
  const meta: MetaRecord = {
    op: 'meta',
    format: HISTORY_FORMAT,
    startedAtMs: 0,
    products,
    run: {
      id: 'sale1',
      generator: file.replace('.jsonl', ''),
      role: 'follower',
      clock: { offsetMs, uncertaintyMs, against: AGAINST, measuredAtMs: 0, samples: 20 },
      ...rest,
    },
  };
  return { file, meta, ops };
};
const buy = (userId: string, t: number, orderId: string): OpRecord => ({
  op: 'purchase',
  productId: P,
  userId,
  quantity: 1,
  key: `k${userId}`,
  purchaseId: `k${userId}`,
  status: 201,
  orderId,
  invokeMs: t,
  completeMs: t + 10,
});
const read = readRecord;
const order = (id: string, userId: string, createdAtMs: number): FinalOrder => ({
  id,
  productId: P,
  userId,
  quantity: 1,
  status: 'PENDING_PAYMENT',
  purchaseId: `k${userId}`,
  createdAtMs,
  expiresAtMs: createdAtMs + 600_000,
});
const judge = (meta: MetaRecord, ops: OpRecord[], orders: FinalOrder[]) =>
  checkHistory(meta, ops, orders, { finalReadAtMs: 10_000_000, require: [] });
const failedIds = (check: ReturnType<typeof judge>): string[] => check.rules.filter((r) => !r.ok).map((r) => r.id);
const judgeMerged = (parts: HistoryPart[], orders: FinalOrder[]) => {
  const { meta, ops } = mergeHistories(parts);
  return failedIds(judge(meta, ops, orders));
};

/** B's clock runs 10 s behind the API's: it writes t − 10 000 for what happened at t. */
const BEHIND = 10_000;

/**
 * The true sale, on the API's clock: A reads 3, sells order 1, reads 2; B sells order 2, reads 1.
 * A's clock is the API's; B's is 10 s behind, and each history is written in its own clock.
 */
function twoGenerators(bRead = 1, uncertaintyMs = 2) {
  const a = part('a.jsonl', { role: 'lead', offsetMs: 0, uncertaintyMs: 1 }, [
    read(3, 1000),
    buy('a', 1500, '1'),
    read(2, 2000),
  ]);
  const b = part('b.jsonl', { offsetMs: BEHIND, uncertaintyMs }, [
    buy('b', 2500 - BEHIND, '2'),
    read(bRead, 3000 - BEHIND),
  ]);
  return { a, b, orders: [order('1', 'a', 1505), order('2', 'b', 2505)] };
}

describe('toReferenceClock', () => {
  it('moves every time by the offset and widens each interval by the uncertainty', () => {
    const ops = [read(3, 1000), buy('a', 2000, '1')];
    toReferenceClock(ops, { offsetMs: 250, uncertaintyMs: 4 });
    expect(ops.map((op) => [op.invokeMs, op.completeMs])).toEqual([
      [1246, 1259],
      [2246, 2264],
    ]);
  });

  it('refuses an offset that is not a number, or a negative bound', () => {
    expect(() => toReferenceClock([], { offsetMs: NaN, uncertaintyMs: 1 })).toThrow(/not a finite offset/);
    expect(() => toReferenceClock([], { offsetMs: 0, uncertaintyMs: -1 })).toThrow(/not a finite offset/);
  });
});

describe('mergeHistories', () => {
  it('finds false violations in the raw times of two clocks, and none once each history is on the API clock', () => {
    const { a, b, orders } = twoGenerators();
    // Raw, B's read of 1 comes before A's read of 3 (a rise nothing explains), and B's 201 comes
    // ten seconds before its order was created.
    expect(
      judge(a.meta, [...a.ops, ...b.ops], orders)
        .rules.filter((r) => !r.ok)
        .map((r) => r.id),
    ).toEqual(expect.arrayContaining(['reads-rise', 'real-time', 'explained']));
    expect(judgeMerged([a, b], orders)).toEqual([]);
  });

  it('still finds a true violation across the two histories: B reads 3 after A read 2, with nothing given back', () => {
    const { a, b, orders } = twoGenerators(3, 50);
    expect(judgeMerged([a, b], orders)).toEqual(['reads-rise', 'reads-level']);
  });

  it('still finds an oversell made of orders the two generators were each told of', () => {
    const a = part('a.jsonl', { role: 'lead', offsetMs: 0, uncertaintyMs: 1 }, [
      buy('a', 1000, '1'),
      buy('c', 1000, '3'),
    ]);
    const b = part('b.jsonl', { offsetMs: BEHIND, uncertaintyMs: 3 }, [
      buy('b', 1000 - BEHIND, '2'),
      buy('d', 1000 - BEHIND, '4'),
    ]);
    const orders = [order('1', 'a', 1005), order('3', 'c', 1005), order('2', 'b', 1005), order('4', 'd', 1005)];
    expect(judgeMerged([a, b], orders)).toEqual(['units']);
  });

  it('keeps a clean sale clean when an offset is off by as much as its bound: the widening covers it', () => {
    // Truth: B reads 3 at [1480, 1485], then order 1 is made, then A reads 2 at [1520, 1525].
    // B's offset was measured 60 ms high (bound ±60): shifted alone, its read would land after A's.
    const history = (uncertaintyMs: number) => [
      part('a.jsonl', { role: 'lead', offsetMs: 0, uncertaintyMs: 0 }, [buy('a', 1490, '1'), read(2, 1520)]),
      part('b.jsonl', { offsetMs: BEHIND + 60, uncertaintyMs }, [read(3, 1480 - BEHIND)]),
    ];
    const orders = [order('1', 'a', 1495)];
    expect(judgeMerged(history(60), orders)).toEqual([]);
    expect(judgeMerged(history(0), orders)).toEqual(['reads-rise', 'reads-level']);
  });

  it("takes the lead's products, names each operation's generator and orders the operations by answer", () => {
    const { a, b } = twoGenerators();
    const merged = mergeHistories([b, a]);
    expect(merged.meta.products).toBe(a.meta.products);
    expect(merged.ops.map((op) => [op.process, op.completeMs])).toEqual([
      ['a', 1006],
      ['a', 1511],
      ['a', 2006],
      ['b', 2512],
      ['b', 3007],
    ]);
    expect(merged.run).toMatchObject({
      id: 'sale1',
      against: AGAINST,
      parts: [
        { file: 'b.jsonl', generator: 'b', role: 'follower', ops: 2, offsetMs: BEHIND, uncertaintyMs: 2 },
        { file: 'a.jsonl', generator: 'a', role: 'lead', ops: 3, offsetMs: 0, uncertaintyMs: 1 },
      ],
    });
  });

  it('leaves a single history written without a run as it is', () => {
    const ops = [read(3, 1000)];
    const meta: MetaRecord = { op: 'meta', format: HISTORY_FORMAT, products: [] };
    expect(mergeHistories([{ file: 'x', meta, ops }])).toEqual({ meta, ops });
    expect(ops[0].invokeMs).toBe(1000);
  });

  it('refuses histories that are not one run with one lead', () => {
    const lead = () => part('a.jsonl', { role: 'lead', offsetMs: 0, uncertaintyMs: 1 }, []);
    const follower = (over: Partial<GeneratorRun> = {}) =>
      part('b.jsonl', { offsetMs: 0, uncertaintyMs: 1, ...over }, []);
    const bare = { ...follower(), meta: { ...follower().meta, run: undefined } };
    expect(() => mergeHistories([lead(), bare])).toThrow(/b.jsonl: no run record/);
    expect(() => mergeHistories([lead(), follower({ id: 'other' })])).toThrow(/different runs: sale1, other/);
    expect(() => mergeHistories([follower(), part('c.jsonl', { offsetMs: 0, uncertaintyMs: 1 }, [])])).toThrow(
      /0 of the files are a lead's/,
    );
    expect(() => mergeHistories([lead(), follower({ role: 'lead' })])).toThrow(/2 of the files are a lead's/);
    expect(() => mergeHistories([lead(), follower({ generator: 'a' })])).toThrow(/both generator a/);
    const elsewhere = follower();
    elsewhere.meta.run!.clock.against = 'date-header http://other:3000';
    expect(() => mergeHistories([lead(), elsewhere])).toThrow(/different clocks/);
    const otherProduct = part(
      'b.jsonl',
      { offsetMs: 0, uncertaintyMs: 1 },
      [],
      [{ productId: '8', initialStock: 1, perUserLimit: 1 }],
    );
    expect(() => mergeHistories([lead(), otherProduct])).toThrow(/product 8 is not the lead's/);
    expect(() => mergeHistories([])).toThrow(/no history/);
  });

  it("refuses a follower's operation surely over before the lead read its products", () => {
    const lead = part('a.jsonl', { role: 'lead', offsetMs: 0, uncertaintyMs: 1, productsReadAtMs: 5000 }, []);
    const early = part('b.jsonl', { offsetMs: BEHIND, uncertaintyMs: 1 }, [buy('b', 4000 - BEHIND, '2')]);
    expect(() => mergeHistories([lead, early])).toThrow(/b.jsonl: an operation answered .* before the lead read/);
    const straddling = part('b.jsonl', { offsetMs: BEHIND, uncertaintyMs: 1 }, [buy('b', 4990 - BEHIND, '2')]);
    expect(() => mergeHistories([lead, straddling])).not.toThrow();
  });
});
