import type { DataSource } from 'typeorm';
import { ID_RANGE_RECHECK_MS, ProductIdRange } from './product-id-range';

/** A database whose highest product id the test sets; counts the questions it is asked. */
function database(highest: { id: string | null }) {
  const asked: string[] = [];
  const db = { query: async (sql: string) => (asked.push(sql), [{ highest: highest.id }]) };
  return { db: db as unknown as DataSource, asked };
}

describe('ProductIdRange', () => {
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('answers every id above the highest with one look, shared by the callers that arrive meanwhile', async () => {
    const { db, asked } = database({ id: '40' });
    const range = new ProductIdRange(db);
    const answers = await Promise.all(['41', '9000', '9223372036854775807', '40'].map((id) => range.mayExist(id)));
    expect(answers).toEqual([false, false, false, true]);
    expect(await range.mayExist('77')).toBe(false);
    expect(asked).toHaveLength(1);
  });

  it('looks again once the last look is older than the recheck window, and finds ids created elsewhere', async () => {
    const highest = { id: '40' as string | null };
    const { db, asked } = database(highest);
    const range = new ProductIdRange(db);
    expect(await range.mayExist('41')).toBe(false);
    highest.id = '41';
    now += ID_RANGE_RECHECK_MS - 1;
    expect(await range.mayExist('41')).toBe(false);
    now += 1;
    expect(await range.mayExist('41')).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it('counts ids at or below the highest as possible without asking, and takes in the ones it created', async () => {
    const { db, asked } = database({ id: null });
    const range = new ProductIdRange(db);
    expect(await range.mayExist('1')).toBe(false);
    range.noteCreated('12');
    expect(await Promise.all(['1', '12'].map((id) => range.mayExist(id)))).toEqual([true, true]);
    expect(asked).toHaveLength(1);
  });
});
