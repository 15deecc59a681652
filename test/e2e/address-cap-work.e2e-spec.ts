import { AppHarness, startApp } from '../support/app-harness';
import { adminAuth, auth } from '../support/tokens';
import { solveJoinWork } from '../../apps/api/src/waiting-room/join-work/solve';
import { QueueStore } from '../../apps/api/src/waiting-room/queue-store';
import type { AddressLimit } from '../../apps/api/src/waiting-room/scripts/join';

interface Challenge {
  challenge: string;
  modulus: string;
  squarings: number;
  expiresAt: string;
}

const NAT = '198.51.100.77';

/**
 * People behind one shared address (a carrier NAT) are never locked out of a pre-queue: past
 * waitingRoom.joinsPerAddress a join is answered 429 RATE_LIMITED naming a challenge whose work
 * doubles with each ticket the address holds past its cap, and the solved work takes a ticket.
 */
describe('joins past joinsPerAddress: work instead of a lock-out', () => {
  let harness: AppHarness;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000' });
  });
  afterAll(() => harness.close());

  async function product(waitingRoom: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
    const payload = {
      sku: `CAP-${Date.now()}-${Math.random()}`,
      name: 'Capped',
      priceCents: 100,
      stock: 50,
      waitingRoom,
      ...extra,
    };
    const created = await harness.app.inject({ method: 'POST', url: '/admin/products', headers: adminAuth(), payload });
    expect(created.statusCode).toBe(201);
    return created.json<{ id: string }>().id;
  }

  const join = (id: string, user: string, work?: unknown) =>
    harness.app.inject({
      method: 'POST',
      url: `/products/${id}/queue`,
      remoteAddress: NAT,
      headers: auth(user),
      ...(work ? { payload: { work } } : {}),
    });

  /** The 429 of a join over the cap, checked for what it must say, and the challenge it names. */
  async function refusedOverCap(id: string, user: string, work?: unknown): Promise<Challenge> {
    const res = await join(id, user, work);
    expect(res.statusCode).toBe(429);
    const body = res.json<{ code: string; message: string; challenge: Challenge }>();
    expect(body.code).toBe('RATE_LIMITED');
    expect(body.message).toMatch(/challenge/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(body.challenge).toEqual({
      challenge: expect.stringMatching(
        new RegExp(`^w2\\.${id}\\.\\d+\\.${body.challenge.squarings}\\.[A-Za-z0-9_-]{22}$`),
      ),
      modulus: expect.stringMatching(/^[0-9a-f]{256}$/),
      squarings: expect.any(Number),
      expiresAt: expect.any(String),
    });
    return body.challenge;
  }

  it('asks NAT neighbours past the cap for growing work, and their solved work takes their tickets', async () => {
    // Before the start, as a pre-queue fills: a lock-out here would mean missing the shuffle.
    const id = await product(
      { joinsPerAddress: 1, preQueueS: 600 },
      { saleStartsAt: new Date(Date.now() + 300_000).toISOString() },
    );
    expect((await join(id, 'nat-0')).statusCode).toBe(200);
    const asked: number[] = [];
    for (const user of ['nat-1', 'nat-2', 'nat-3']) {
      const challenge = await refusedOverCap(id, user);
      asked.push(challenge.squarings);
      const joined = await join(id, user, solveJoinWork(challenge, user));
      expect(joined.statusCode).toBe(200);
      expect(joined.json()).toMatchObject({ state: 'WAITING' });
    }
    expect(asked).toEqual([2 ** 17, 2 ** 18, 2 ** 19]);
    // Each holds their ticket: joining again gives it back, no work asked.
    expect((await join(id, 'nat-2')).statusCode).toBe(200);
  });

  it('takes no work twice, no work of a step the address has passed, and no other user’s work', async () => {
    const id = await product({ joinsPerAddress: 1 });
    expect((await join(id, 'solo-0')).statusCode).toBe(200);
    // Two neighbours handed the same step solve it at once: the first takes a ticket, the second is asked for the next.
    const step = await refusedOverCap(id, 'solo-a');
    expect((await refusedOverCap(id, 'solo-b')).challenge).toBe(step.challenge);
    const [a, b] = [solveJoinWork(step, 'solo-a'), solveJoinWork(step, 'solo-b')];
    expect((await join(id, 'solo-a', a)).statusCode).toBe(200);
    expect((await refusedOverCap(id, 'solo-b', b)).squarings).toBe(2 ** 18);
    // Another user's solution, or one already used, takes nothing either.
    expect((await refusedOverCap(id, 'solo-c', a)).squarings).toBe(2 ** 18);
    const next = await refusedOverCap(id, 'solo-b');
    const solved = solveJoinWork(next, 'solo-b');
    expect((await join(id, 'solo-b', solved)).statusCode).toBe(200);
    expect((await refusedOverCap(id, 'solo-c')).squarings).toBe(2 ** 19);
  });

  it('asks more than the sale’s own join work past the cap, and takes the over-cap solution', async () => {
    const id = await product({ joinsPerAddress: 1, joinWork: { squarings: 2_000 } });
    const challengeOf = async () =>
      (await harness.app.inject({ method: 'GET', url: `/products/${id}/queue/challenge` })).json<Challenge>();
    const own = await challengeOf();
    expect((await join(id, 'worker-0', solveJoinWork(own, 'worker-0'))).statusCode).toBe(200);
    const over = await refusedOverCap(id, 'worker-1', solveJoinWork(own, 'worker-1'));
    expect(over.squarings).toBe(2 ** 17);
    expect((await join(id, 'worker-1', solveJoinWork(over, 'worker-1'))).statusCode).toBe(200);
  });

  it('doubles per ticket past the cap up to 2^25 squarings, where it stays: hundreds of accounts pay each time', async () => {
    // The join's script with the work's squarings as the service reports them, to walk the ladder without solving it.
    const id = await product({ joinsPerAddress: 2 });
    const store = harness.app.get(QueueStore);
    const terms = {
      saleStartsAtMs: null,
      joinsPerAddress: 2,
      needsWork: false,
      overCap: { first: 2 ** 17, most: 2 ** 25 },
    };
    const at = (userId: string, squarings?: number, nonce = `nonce-${userId}-`.padEnd(16, 'x')) =>
      store.defendedJoin(id, terms, {
        userId,
        nowMs: Date.now(),
        address: 'operator',
        work: squarings === undefined ? undefined : { nonce, expiresAtMs: Date.now() + 60_000, squarings },
      });
    for (const user of ['op-a', 'op-b']) expect(await at(user)).toMatchObject({ created: true });
    const asked: number[] = [];
    for (let i = 0; i < 14; i++) {
      const refusal = (await at(`op-${i}`)) as AddressLimit;
      asked.push(refusal.squaringsNeeded);
      expect((await at(`op-${i}`, refusal.squaringsNeeded / 2)) as AddressLimit).toMatchObject({
        refusal: 'address-limit',
      });
      expect(await at(`op-${i}`, refusal.squaringsNeeded)).toMatchObject({ created: true });
    }
    expect(asked).toEqual([17, 18, 19, 20, 21, 22, 23, 24, 25, 25, 25, 25, 25, 25].map((k) => 2 ** k));
  });
});
