/**
 * The stock statement of purchase_batch as the final safeguard, with no Redis lock at all: two
 * batches on one product from two connections, the second planned on units the first is taking
 * (it read the row before the first committed, then waits on the row's lock). The databases are
 * built by the app's migrations, then lose the CHECK (stock >= 0) on stock rows, so that only the
 * conditional UPDATE's WHERE stands between a batch and an oversell. Copies of the function with
 * one condition of that WHERE removed show what each condition is for.
 */
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../apps/api/src/database/data-source-options';
import {
  ConditionalStockUpdate1763700800000,
  CREATE_FUNCTION,
} from '../../apps/api/src/database/migrations/1763700800000-conditional-stock-update';
import { MIGRATIONS } from '../../apps/api/src/database/migrations';
import { eventually, withPg } from '../support/api-client';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(60_000);

interface Product {
  id: string;
  /** null: the product row holds the stock; else the segment whose row does. */
  segment: number | null;
  initial: number;
}

interface BatchRow {
  idx: number;
  outcome: string;
  stock_left: number | null;
}

/** What Postgres holds for one product, against what the test put there. */
interface Ledger {
  initial: number;
  orders: number;
  orderedUnits: number;
  stock: number;
}

/** The guard: never more units ordered than there were, stock never below zero, no unit lost or made. */
function expectNoOversell(ledger: Ledger): void {
  if (ledger.orderedUnits > ledger.initial)
    throw new Error(`oversold: ${ledger.orders} orders for ${ledger.initial} units`);
  if (ledger.stock < 0) throw new Error(`oversold: stock at ${ledger.stock}`);
  if (ledger.orderedUnits + ledger.stock !== ledger.initial) {
    throw new Error(
      `units lost or made: ${ledger.orderedUnits} ordered + ${ledger.stock} left, ${ledger.initial} put in`,
    );
  }
}

/** A batch whose fence is older than one committed on the row must leave the row and the orders as they were. */
function expectNoStaleWrite(stale: { fence: number; rowFence: number; orders: number; unitsTaken: number }): void {
  if (stale.orders > 0 || stale.unitsTaken !== 0) {
    throw new Error(
      `stale write: a batch fenced ${stale.fence} made ${stale.orders} orders and took ${stale.unitsTaken} units after fence ${stale.rowFence}`,
    );
  }
}

/** A database built by the app's migrations, with only the WHERE left to keep stock from going below zero. */
async function whereOnlyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  const dataSource = await new DataSource(dataSourceOptions(database.url, 2)).initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
  await withPg(database.url, async (pg) => {
    await pg.query('ALTER TABLE products DROP CONSTRAINT products_stock_check');
    await pg.query('ALTER TABLE product_segments DROP CONSTRAINT product_segments_stock_check');
  });
  return database;
}

async function createProduct(url: string, stock: number, segmented: boolean): Promise<Product> {
  return withPg(url, async (pg) => {
    const sku = `sg-${Math.random().toString(36).slice(2)}`;
    const { rows } = await pg.query(
      `INSERT INTO products (sku, name, price_cents, stock, supplied, per_user_limit, segments)
       VALUES ($1, $1, 100, $2, $3, 2, $4) RETURNING id::text AS id`,
      [sku, segmented ? 0 : stock, stock, segmented ? 2 : 1],
    );
    const id: string = rows[0].id;
    if (segmented)
      await pg.query('INSERT INTO product_segments (product_id, segment, stock) VALUES ($1, 0, $2), ($1, 1, 0)', [
        id,
        stock,
      ]);
    return { id, segment: segmented ? 0 : null, initial: stock };
  });
}

function batch(product: Product, fence: number | null, users: string[]) {
  return {
    text: `SELECT idx, outcome, stock_left FROM purchase_batch($1, $2, $3, $4::varchar[], $5::int[], $6::varchar[], $6::varchar[], 60, $7::varchar[], gen_random_uuid()) ORDER BY idx`,
    values: [
      product.id,
      product.segment,
      fence,
      users,
      users.map(() => 1),
      users.map(() => null),
      users.map((u) => `p-${u}`),
    ],
  };
}

async function ledger(url: string, product: Product): Promise<Ledger> {
  return withPg(url, async (pg) => {
    const orders = await pg.query(
      'SELECT count(*)::int AS n, coalesce(sum(quantity), 0)::int AS units FROM orders WHERE product_id = $1',
      [product.id],
    );
    const stock =
      product.segment === null
        ? await pg.query('SELECT stock FROM products WHERE id = $1', [product.id])
        : await pg.query('SELECT stock FROM product_segments WHERE product_id = $1 AND segment = $2', [
            product.id,
            product.segment,
          ]);
    return {
      initial: product.initial,
      orders: orders.rows[0].n,
      orderedUnits: orders.rows[0].units,
      stock: stock.rows[0].stock,
    };
  });
}

/**
 * The holder runs its batch inside a transaction and keeps it open; the racer's batch starts
 * then (so it reads the row as it was before the holder's) and must end up waiting on the row
 * lock the holder's UPDATE took. Only once Postgres shows that wait does the holder commit.
 */
async function overlap(
  url: string,
  first: { text: string; values: unknown[] },
  second: { text: string; values: unknown[] },
): Promise<{ holder: BatchRow[]; racer: BatchRow[] }> {
  const holder = new Client({ connectionString: url });
  const racer = new Client({ connectionString: url });
  await Promise.all([holder.connect(), racer.connect()]);
  try {
    const pidOf = async (client: Client): Promise<number> =>
      (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const [holderPid, racerPid] = [await pidOf(holder), await pidOf(racer)];
    await holder.query('BEGIN');
    const held = (await holder.query(first)).rows as BatchRow[];
    const racing = racer.query(second);
    racing.catch(() => undefined);
    await eventually(
      () =>
        withPg(
          url,
          async (pg) =>
            (
              await pg.query(
                "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock' AND pg_blocking_pids(pid) @> ARRAY[$2::int]",
                [racerPid, holderPid],
              )
            ).rowCount,
        ),
      20_000,
      10,
      "the racer's batch to wait on the holder's row lock",
    );
    await holder.query('COMMIT');
    return { holder: held, racer: (await racing).rows as BatchRow[] };
  } finally {
    await Promise.all([holder.end(), racer.end()]);
  }
}

const users = (round: string, side: string, n: number) => Array.from({ length: n }, (_, i) => `${round}-${side}${i}`);
const count = (rows: BatchRow[], outcome: string) => rows.filter((r) => r.outcome === outcome).length;

/** Two batches of 4 buyers on `stock` units, overlapping; answers and what Postgres holds after. */
async function overlappingBatches(url: string, round: number, stock: number, segmented: boolean) {
  const product = await createProduct(url, stock, segmented);
  const answers = await overlap(
    url,
    batch(product, null, users(`r${round}`, 'a', 4)),
    batch(product, null, users(`r${round}`, 'b', 4)),
  );
  return { product, answers, ledger: await ledger(url, product) };
}

/** A holder with fence 10 commits while a batch with fence 5 (which read the row before) waits on it. */
async function staleFenceBatch(url: string, round: string, segmented: boolean) {
  const product = await createProduct(url, 10, segmented);
  const staleUsers = users(round, 'stale', 2);
  const answers = await overlap(url, batch(product, 10, users(round, 'holder', 2)), batch(product, 5, staleUsers));
  const stale = await withPg(
    url,
    async (pg) =>
      (await pg.query('SELECT count(*)::int AS n FROM orders WHERE user_id = ANY($1::varchar[])', [staleUsers])).rows[0]
        .n as number,
  );
  const after = await ledger(url, product);
  // The holder took 2 units; whatever else left the row, the stale batch took.
  return { answers, verdict: { fence: 5, rowFence: 10, orders: stale, unitsTaken: product.initial - 2 - after.stock } };
}

describe("the conditional stock UPDATE, with no lock but Postgres' row lock", () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await whereOnlyDatabase();
  });
  afterAll(() => database?.drop());

  it('never oversells when a batch planned on units another batch took meanwhile: the row count sends it back to plan again', async () => {
    for (let round = 0; round < 12; round++) {
      const stock = 5 + (round % 4);
      const segmented = round % 2 === 1;
      const { product, answers, ledger: after } = await overlappingBatches(database.url, round, stock, segmented);
      expectNoOversell(after);
      // The second batch read `stock` units, but only what the first left could be sold to it.
      expect(count(answers.holder, 'CREATED')).toBe(4);
      expect(count(answers.racer, 'CREATED')).toBe(stock - 4);
      expect(count(answers.racer, 'SOLD_OUT')).toBe(4 - (stock - 4));
      expect(after.orders).toBe(stock);
      expect(after.stock).toBe(0);
      expect(answers.racer[answers.racer.length - 1].stock_left).toBe(0);
      expect(product.initial).toBe(stock);
    }
  });

  it('refuses nothing on stock that arrived while the batch waited: a row that grew is planned again', async () => {
    const product = await createProduct(database.url, 1, false);
    const buyers = users('grew', 'b', 3);
    const added = {
      text: 'UPDATE products SET stock = stock + 5, supplied = supplied + 5 WHERE id = $1',
      values: [product.id],
    };
    const answers = await overlap(database.url, added, batch(product, null, buyers));
    // It read 1 unit and would have sold 1 and refused 2; it sold 3 of the 6 there at its commit.
    expect(answers.racer.map((r) => r.outcome)).toEqual(['CREATED', 'CREATED', 'CREATED']);
    expect(answers.racer.map((r) => r.stock_left)).toEqual([5, 4, 3]);
    expectNoOversell({ ...(await ledger(database.url, product)), initial: 6 });
  });

  it('writes nothing for a batch whose fence is older than one committed while it waited (no stale write)', async () => {
    for (const segmented of [false, true]) {
      const { answers, verdict } = await staleFenceBatch(database.url, `fence-${segmented}`, segmented);
      expectNoStaleWrite(verdict);
      expect(answers.holder.map((r) => r.outcome)).toEqual(['CREATED', 'CREATED']);
      expect(answers.racer.map((r) => r.outcome)).toEqual(['STALE_FENCE', 'STALE_FENCE']);
    }
  });
});

describe('copies of purchase_batch with one condition of the stock UPDATE removed', () => {
  let scratch: TestDatabase;

  /** The function's own text with `condition` taken out of both stock statements (product row, segment row). */
  function mutant(condition: string): string {
    const parts = CREATE_FUNCTION.split(condition);
    if (parts.length !== 3)
      throw new Error(`"${condition}" appears ${parts.length - 1} times in purchase_batch, expected 2`);
    return parts.join('');
  }

  async function withFunction<T>(text: string, work: () => Promise<T>): Promise<T> {
    await withPg(scratch.url, (pg) => pg.query(text));
    try {
      return await work();
    } finally {
      await withPg(scratch.url, (pg) => pg.query(CREATE_FUNCTION));
    }
  }

  beforeAll(async () => {
    scratch = await whereOnlyDatabase();
  });
  afterAll(() => scratch?.drop());

  it('without `stock >=`, the overlapping batches oversell, and the guard says "oversold"', async () => {
    const withoutStockGuard = mutant(' AND stock >= v_units');
    for (const segmented of [false, true]) {
      const { ledger: after } = await withFunction(withoutStockGuard, () =>
        overlappingBatches(scratch.url, segmented ? 101 : 100, 5, segmented),
      );
      expect(after).toEqual({ initial: 5, orders: 8, orderedUnits: 8, stock: -3 });
      expect(() => expectNoOversell(after)).toThrow('oversold: 8 orders for 5 units');
    }
    // The same scenario, the function as migrated, in the same database: nothing oversold.
    const { ledger: real } = await overlappingBatches(scratch.url, 102, 5, false);
    expect(() => expectNoOversell(real)).not.toThrow();
  });

  it('without `lock_fence <= p_fence`, a batch with a stale fence writes, and the guard says "stale write"', async () => {
    const withoutFenceCheck = mutant(' AND (p_fence IS NULL OR lock_fence <= p_fence)');
    for (const segmented of [false, true]) {
      const { answers, verdict } = await withFunction(withoutFenceCheck, () =>
        staleFenceBatch(scratch.url, `mutant-fence-${segmented}`, segmented),
      );
      expect(answers.racer.map((r) => r.outcome)).toEqual(['CREATED', 'CREATED']);
      expect(() => expectNoStaleWrite(verdict)).toThrow(
        'stale write: a batch fenced 5 made 2 orders and took 2 units after fence 10',
      );
    }
    const { verdict: real } = await staleFenceBatch(scratch.url, 'real-fence', false);
    expect(() => expectNoStaleWrite(real)).not.toThrow();
  });

  it('migrates down to the locked read and up again', async () => {
    const source = () =>
      withPg(scratch.url, async (pg) =>
        (await pg.query("SELECT prosrc FROM pg_proc WHERE proname = 'purchase_batch'")).rows.map(
          (r) => r.prosrc as string,
        ),
      );
    const dataSource = await new DataSource(dataSourceOptions(scratch.url, 2)).initialize();
    try {
      // Undo the migrations after it too, newest first, then it.
      const undos = MIGRATIONS.length - MIGRATIONS.indexOf(ConditionalStockUpdate1763700800000);
      for (let i = 0; i < undos; i++) await dataSource.undoLastMigration({ transaction: 'each' });
      const [down] = await source();
      expect(down).toMatch(/FOR UPDATE/);
      await dataSource.runMigrations({ transaction: 'each' });
      const [up] = await source();
      expect(up).not.toMatch(/FOR UPDATE/);
      expect(up).toMatch(/stock >= v_units/);
    } finally {
      await dataSource.destroy();
    }
  });
});
