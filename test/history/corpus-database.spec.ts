import { readFinalOrders } from '../../scripts/history/final-state';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { CORPUS } from './corpus';
import { failedIds, judge } from './support/judge';
import { load, migrate, relocate } from './support/corpus-database';

jest.setTimeout(60_000);

describe('the history corpus, final orders read from a database built by the migrations', () => {
  let db: TestDatabase;
  const cases = CORPUS.filter((c) => !c.apiOnly).map(relocate);
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.url);
    await load(db.url, cases);
  });
  afterAll(() => db?.drop());

  it('gives every case the verdict it has in memory: broken ones fail naming their rules, near misses pass', async () => {
    const orders = await readFinalOrders(
      cases.flatMap((c) => c.meta.products.map((p) => p.productId)),
      { databaseUrl: db.url },
    );
    const verdicts = cases.map((c) => {
      const ids = new Set(c.meta.products.map((p) => p.productId));
      return [c.name, failedIds(judge(c, orders.filter((o) => ids.has(o.productId))))];
    });
    expect(verdicts).toEqual(cases.map((c) => [c.name, [...c.expect].sort()]));
  });
});
