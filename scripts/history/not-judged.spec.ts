import { checkHistory, formatCheck } from './check-history';
import { HISTORY_FORMAT, MetaRecord, OpRecord } from './format';
import { readRecord, SPEC_PRODUCT } from './spec-records';

const P = SPEC_PRODUCT;
const meta: MetaRecord = {
  op: 'meta',
  format: HISTORY_FORMAT,
  products: [{ productId: P, initialStock: 3, perUserLimit: 1 }],
};
const read = readRecord;
// A stock set that never answered may apply at any later time: a rise or fall after it may be its doing.
const ops: OpRecord[] = [
  read(3, 1000),
  { op: 'setStock', productId: P, stock: 9, error: 'TIMEOUT', invokeMs: 2000, completeMs: 12_000 },
  read(9, 3000),
  read(1, 4000),
];
const judge = (require: string[]) => checkHistory(meta, ops, [], { finalReadAtMs: 100_000, require });

describe('stretches a rule could not judge', () => {
  it('are reported with when and why, and a rule not required still passes', () => {
    const check = judge([]);
    const rise = check.rules.find((r) => r.id === 'reads-rise');
    expect(rise).toMatchObject({
      ok: true,
      unjudged: [{ fromMs: 2000, toMs: Infinity, why: expect.stringMatching(/unanswered stock set/) }],
    });
    expect(formatCheck(check)).toMatch(/not judged from 1970-01-01T00:00:02\.000Z to the end: an unanswered stock set/);
  });

  it('fail a rule that --require names', () => {
    const check = judge(['reads-rise', 'reads-fall']);
    expect(check.rules.filter((r) => !r.ok).map((r) => r.id)).toEqual(['reads-rise', 'reads-fall']);
    expect(formatCheck(check)).toMatch(/may be its doing \(required\)/);
    expect(check.ok).toBe(false);
  });

  it('state the clock allowance the real-time rules used', () => {
    expect(formatCheck(checkHistory(meta, ops, [], { finalReadAtMs: 100_000, require: [], skewMs: 400 }))).toMatch(
      /clock allowance between the writer and the database: ±400 ms/,
    );
  });
});
