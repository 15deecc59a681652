import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { Client } from 'pg';
import { eventually, injectSender, sleep } from '../support/api-client';
import { AppHarness, startApp, TEST_JWT_SECRET } from '../support/app-harness';
import { runOrderScript } from '../support/queue-order';
import { WaitingRoomClient } from '../support/waiting-room-client';

const sha256 = (hex: string): string => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

/**
 * The seed as it used to be made: HMAC of the waiting room's key (HKDF of JWT_SECRET) over the
 * product id. Anyone who saw one sale's seed knew every later sale's of that id, in every
 * deployment sharing the secret; computed here only to show that no seed equals it any more.
 */
const derivedSeed = (productId: string): string => {
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(TEST_JWT_SECRET, 'utf8'), Buffer.alloc(0), 'flash-sale waiting room v1', 32),
  );
  return createHmac('sha256', key).update(`seed|${productId}`).digest('hex');
};

const storedSeed = async (db: Client, productId: string): Promise<Buffer | null> =>
  (await db.query<{ seed: Buffer | null }>('SELECT waiting_room_seed AS seed FROM products WHERE id = $1', [productId]))
    .rows[0].seed;

/**
 * Each sale's pre-queue shuffle seed is its own: 32 random bytes drawn when its waiting room is
 * created, stored with it, committed to (SHA-256) before anyone can join and revealed at the start.
 */
describe('waiting room seeds', () => {
  jest.setTimeout(60_000); // two deployments start, each with its own database and Redis
  let deployments: AppHarness[];
  let rooms: WaitingRoomClient[];
  let db: Client;

  beforeAll(async () => {
    // Two deployments sharing JWT_SECRET, each with a database of its own (as after a reset).
    deployments = await Promise.all(
      [0, 1].map(() =>
        startApp({
          RATE_LIMIT_PER_SECOND: '1000',
          QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000',
          WAITING_ROOM_TICK_MS: '50',
        }),
      ),
    );
    rooms = deployments.map((d) => new WaitingRoomClient(injectSender(d.app)));
    db = new Client({ connectionString: deployments[0].database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await Promise.all((deployments ?? []).map((d) => d.close()));
  });

  it('gives the same product id a different seed in every deployment, and every sale its own, none derived from the secret', async () => {
    const [first, other] = await Promise.all(
      rooms.map((room) => room.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 10 } })),
    );
    expect(first.id).toBe(other.id);
    const next = await rooms[0].createProduct({ stock: 5, waitingRoom: { admitPerSecond: 10 } });
    // No saleStartsAt: the sale has started, so each seed is published.
    const seeds = [
      (await rooms[0].summary(first.id)).seed!,
      (await rooms[1].summary(other.id)).seed!,
      (await rooms[0].summary(next.id)).seed!,
    ];
    for (const seed of seeds) expect(seed).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(seeds).size).toBe(3);
    expect(seeds).not.toContain(derivedSeed(first.id));
    expect(seeds).not.toContain(derivedSeed(next.id));
  });

  it('stores the seed with the sale at creation, commits to it before the first join and reveals it at saleStartsAt', async () => {
    const room = rooms[0];
    const startsAt = Date.now() + 2000;
    const product = await room.createProduct({
      stock: 10,
      saleStartsAt: new Date(startsAt).toISOString(),
      waitingRoom: { admitPerSecond: 1, preQueueS: 600 },
    });
    const stored = await storedSeed(db, product.id);
    expect(stored).toHaveLength(32);
    const hex = stored!.toString('hex');
    // Nothing shown of the product carries the seed before the start.
    expect(JSON.stringify(product)).not.toContain(hex);
    expect((await room.api.getProduct(product.id)).raw).not.toContain(hex);

    const before = await room.summary(product.id);
    expect(before).toMatchObject({ waiting: 0, seed: null, seedCommitment: sha256(hex) });
    const tickets = await Promise.all(Array.from({ length: 8 }, (_, i) => room.joined(product.id, `seeded-${i}`)));
    expect((await room.summary(product.id)).seed).toBeNull();

    await sleep(startsAt - Date.now() + 50);
    const after = await room.summary(product.id);
    expect(after).toMatchObject({ seed: hex, seedCommitment: before.seedCommitment });
    expect(await storedSeed(db, product.id)).toEqual(stored);
    // The published figures alone reproduce the queue's order (the independent script, as a buyer runs it).
    const order = (
      await runOrderScript(
        after.seed!,
        after.seedCommitment!,
        tickets.map((t) => t.ticketId),
      )
    )
      .split('\n')
      .filter(Boolean);
    const seen = await eventually(
      async () => {
        const statuses = await Promise.all(
          tickets.map(async (t) => ({ id: t.ticketId, ...(await room.status(product.id, t.ticket)) })),
        );
        const waiting = statuses.filter((s) => s.state === 'WAITING');
        // Shuffled once the leader has closed the pre-queue: every waiting ticket then has a place of its own.
        return new Set(waiting.map((s) => s.position)).size === waiting.length ? statuses : undefined;
      },
      5000,
      50,
      'the pre-queue to be shuffled',
    );
    const admitted = seen.filter((s) => s.state === 'ADMITTED').map((s) => s.id);
    const waiting = seen
      .filter((s) => s.state === 'WAITING')
      .sort((a, b) => a.position - b.position)
      .map((s) => s.id);
    expect(admitted.length + waiting.length).toBe(order.length);
    expect(new Set(admitted)).toEqual(new Set(order.slice(0, admitted.length)));
    expect(waiting).toEqual(order.slice(admitted.length));
  }, 20_000);

  it('is refused by Postgres for a waiting room without its 32-byte seed', async () => {
    const insert = (seed: Buffer | null) =>
      db.query(
        `INSERT INTO products (sku, name, price_cents, stock, supplied, per_user_limit, segments, waiting_room, waiting_room_seed)
         VALUES ($1, 'no seed', 1, 1, 1, 1, 1, '{"admitPerSecond":1,"admissionTtlS":120,"preQueueS":0}', $2)`,
        [`NO-SEED-${seed?.length ?? 'null'}`, seed],
      );
    await expect(insert(null)).rejects.toMatchObject({ code: '23514' });
    await expect(insert(Buffer.alloc(16, 1))).rejects.toMatchObject({ code: '23514' });
  });
});
