import type { ApiProcess } from '../../scripts/infra/api-process';
import { withPg } from '../support/api-client';
import { PgBouncerProcess } from '../support/pgbouncer';
import { RedisServerProcess } from '../support/redis-server';
import { runScaleSale, startApis } from '../support/scale-sale';
import { createTestDatabase, TestDatabase } from '../support/test-database';
import { describeOnLinux } from '../support/linux-only';

jest.setTimeout(180_000);

describeOnLinux('Debian\'s pgbouncer, installed with apt-get')('3 API instances on Postgres behind PgBouncer (transaction mode)', () => {
  let db: TestDatabase;
  let redis: RedisServerProcess;
  let bouncer: PgBouncerProcess;
  let apis: ApiProcess[] = [];

  beforeAll(async () => {
    [db, redis] = await Promise.all([createTestDatabase(), RedisServerProcess.start()]);
    bouncer = await PgBouncerProcess.start(db.url, 10);
    // Migrations take a session-level advisory lock: they run against Postgres directly.
    const [migrator] = await startApis(1, { DATABASE_URL: db.url, REDIS_URL: redis.url });
    await migrator.stop();
    // PgBouncer does not pass these startup parameters on; the database carries them instead.
    await withPg(db.url, (client) => client.query(`ALTER DATABASE "${db.name}" SET statement_timeout = '5s'`));
    await withPg(db.url, (client) => client.query(`ALTER DATABASE "${db.name}" SET idle_in_transaction_session_timeout = '10s'`));
    // Debian's PgBouncer 1.18 keeps no named prepared statements across transactions: with them on,
    // purchases fail with "prepared statement purchase_batch does not exist" (500s; invariants hold).
    const env = { DATABASE_URL: bouncer.urlFor(db.url), REDIS_URL: redis.url, DB_MIGRATE: 'false', DB_POOL_SIZE: '20', DB_PREPARED_STATEMENTS: 'false' };
    apis = await startApis(3, env);
  });
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
    await bouncer?.stop();
    await redis?.stop();
    await db?.drop();
  });

  it('sells exactly the stock with every invariant holding, 60 client connections on 10 server connections', async () => {
    const sale = await runScaleSale({ apis, databaseUrl: db.url, stock: 200 });
    console.log(`pgbouncer sale ${JSON.stringify(sale)}`);
    expect(sale.purchases).toBe(200);
    const health = await Promise.all(apis.map((api) => fetch(`${api.url}/health`).then((r) => r.status)));
    expect(health).toEqual([200, 200, 200]);
  });
});
