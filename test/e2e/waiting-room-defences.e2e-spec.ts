import { request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';
import { ApiResponse, expectContractError, injectSender, Send } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { adminAuth, auth, bearer, tokenWithClaims } from '../support/tokens';
import { TicketStatus, WaitingRoomClient } from '../support/waiting-room-client';
import { solveJoinWork } from '../../apps/api/src/waiting-room/join-work/solve';
import { QueueStore } from '../../apps/api/src/waiting-room/queue-store';

interface Challenge {
  challenge: string;
  modulus: string;
  squarings: number;
  expiresAt: string;
}

/** HTTP from a chosen loopback source address (127.0.0.N), so the app sees distinct clients. */
function senderFrom(port: number, localAddress: string): Send {
  return (req) =>
    new Promise<ApiResponse>((resolve, reject) => {
      const body = req.payload === undefined ? undefined : JSON.stringify(req.payload);
      const headers: Record<string, string> = { ...(req.headers ?? {}) };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const outgoing = httpRequest(
        { host: '127.0.0.1', port, localAddress, method: req.method, path: req.url, headers },
        (res) => {
          let raw = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (raw += chunk));
          res.on('end', () => {
            const flat: Record<string, string | undefined> = {};
            for (const [name, value] of Object.entries(res.headers))
              flat[name] = Array.isArray(value) ? value.join(', ') : value;
            let parsed: unknown;
            try {
              parsed = raw ? JSON.parse(raw) : undefined;
            } catch {
              parsed = undefined;
            }
            resolve({ status: res.statusCode ?? 0, headers: flat, raw, body: parsed });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
}

/** A join refused over joinsPerAddress: the contract's 429 body plus the challenge whose work would take a ticket now. */
function expectOverCap(res: ApiResponse): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    statusCode: 429,
    code: 'RATE_LIMITED',
    message: expect.any(String),
    challenge: expect.objectContaining({ squarings: expect.any(Number) }),
  });
}

/** The defences a product's waiting room may set against scripted buyers: work at the door, tickets per address, a required claim. */
describe('waiting room defences', () => {
  let harness: AppHarness;
  let room: WaitingRoomClient;
  let port: number;

  beforeAll(async () => {
    harness = await startApp({
      RATE_LIMIT_PER_SECOND: '1000',
      QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000',
      WAITING_ROOM_TICK_MS: '50',
    });
    await harness.app.listen(0, '127.0.0.1');
    port = (harness.app.getHttpServer().address() as AddressInfo).port;
    room = new WaitingRoomClient(injectSender(harness.app));
  });
  afterAll(() => harness.close());

  const challengeOf = (productId: string) => room.send({ method: 'GET', url: `/products/${productId}/queue/challenge` });
  const joinWith = (productId: string, user: string, payload: unknown, send: Send = room.send) =>
    send({ method: 'POST', url: `/products/${productId}/queue`, headers: auth(user), payload });
  const solved = async (productId: string, user: string) => {
    const res = await challengeOf(productId);
    expect(res.status).toBe(200);
    const challenge = res.body as Challenge;
    return { challenge, work: solveJoinWork(challenge, user) };
  };

  describe('joinWork', () => {
    it('shows the setting on the product and refuses one out of range', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinWork: { squarings: 5_000 } } as never });
      expect(product.waitingRoom).toEqual({
        admitPerSecond: null,
        admissionTtlS: 120,
        preQueueS: 0,
        joinWork: { squarings: 5_000 },
      });
      for (const joinWork of [
        { squarings: 999 },
        { squarings: 100_000_001 },
        { squarings: 1.5 },
        { squarings: '5000' },
        {},
        5000,
        { squarings: 5000, extra: 1 },
      ])
        expectContractError(
          await room.api.createProductRaw({ waitingRoom: { joinWork } } as never, adminAuth()),
          400,
          'VALIDATION_FAILED',
        );
    });

    it("hands out the sale's challenge to anyone, the same to all, and 404 NOT_FOUND for a product that asks no work", async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinWork: { squarings: 2_000 } } as never });
      const res = await challengeOf(product.id);
      expect(res.status).toBe(200);
      const challenge = res.body as Challenge;
      expect(challenge).toEqual({
        challenge: expect.stringMatching(new RegExp(`^w2\\.${product.id}\\.\\d+\\.2000\\.[A-Za-z0-9_-]{22}$`)),
        modulus: expect.stringMatching(/^[0-9a-f]{256}$/),
        squarings: 2_000,
        expiresAt: expect.any(String),
      });
      expect(Date.parse(challenge.expiresAt) - Date.now()).toBeGreaterThan(120_000);
      const maxAge = Number(/^public, max-age=(\d+)$/.exec(res.headers['cache-control'] ?? '')?.[1]);
      expect(maxAge).toBeGreaterThanOrEqual(1);
      expect(maxAge).toBeLessThanOrEqual(60);
      // The same answer to a second ask, with a token this time.
      const withToken = await room.send({
        method: 'GET',
        url: `/products/${product.id}/queue/challenge`,
        headers: auth('c-user'),
      });
      expect(withToken.body).toEqual(challenge);
      const plain = await room.createProduct({ stock: 5, waitingRoom: {} });
      expectContractError(await challengeOf(plain.id), 404, 'NOT_FOUND');
      expectContractError(await challengeOf('abc'), 400, 'VALIDATION_FAILED');
      const later = await room.createProduct({
        stock: 5,
        saleStartsAt: new Date(Date.now() + 3_600_000).toISOString(),
        waitingRoom: { joinWork: { squarings: 2_000 }, preQueueS: 60 } as never,
      });
      const notOpen = await challengeOf(later.id);
      expectContractError(notOpen, 403, 'SALE_NOT_ACTIVE');
      // A refusal is not for caches to keep: the queue opens on its own time.
      expect(notOpen.headers['cache-control'] ?? '').not.toMatch(/public/);
    });

    it('refuses a join without work, takes solved work, and gives the ticket back without new work', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinWork: { squarings: 2_000 } } as never });
      const missing = await room.join(product.id, 'worker');
      expectContractError(missing, 403, 'JOIN_WORK_REQUIRED');
      expect((missing.body as unknown as { message: string }).message).toContain(
        `/products/${product.id}/queue/challenge`,
      );
      const { work } = await solved(product.id, 'worker');
      const joined = await joinWith(product.id, 'worker', { work });
      expect(joined.status).toBe(200);
      const ticket = joined.body as TicketStatus;
      expect(ticket.state).toBe('WAITING');
      const again = await room.joined(product.id, 'worker');
      expect(again.ticket).toBe(ticket.ticket);
      expect((await joinWith(product.id, 'worker', { work })).body.ticket).toBe(ticket.ticket);
    });

    it("refuses wrong, another user's, another product's and altered work with 403 JOIN_WORK_INVALID", async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinWork: { squarings: 2_000 } } as never });
      const other = await room.createProduct({ stock: 5, waitingRoom: { joinWork: { squarings: 2_000 } } as never });
      const { challenge, work } = await solved(product.id, 'honest');
      const n = BigInt(`0x${challenge.modulus}`);
      const wrong = ((BigInt(`0x${work.solution}`) + 1n) % n).toString(16);
      expectContractError(
        await joinWith(product.id, 'honest', { work: { ...work, solution: wrong } }),
        403,
        'JOIN_WORK_INVALID',
      );
      expectContractError(
        await joinWith(product.id, 'honest', { work: { ...work, nonce: `${work.nonce}x` } }),
        403,
        'JOIN_WORK_INVALID',
      );
      expectContractError(await joinWith(product.id, 'thief', { work }), 403, 'JOIN_WORK_INVALID');
      expectContractError(await joinWith(other.id, 'honest', { work }), 403, 'JOIN_WORK_INVALID');
      const fields = work.challenge.split('.');
      fields[2] = String(Number(fields[2]) - 600_000);
      expectContractError(
        await joinWith(product.id, 'honest', { work: { ...work, challenge: fields.join('.') } }),
        403,
        'JOIN_WORK_INVALID',
      );
      // None of them spent the challenge: the honest user still joins with it.
      expect((await joinWith(product.id, 'honest', { work })).status).toBe(200);
    });

    it('takes a solution once: the same work cannot make a second ticket', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinWork: { squarings: 2_000 } } as never });
      const { work } = await solved(product.id, 'once');
      expect((await joinWith(product.id, 'once', { work })).status).toBe(200);
      // As if the user's ticket were gone (its join-idempotency entry dropped): the used work does not make another.
      const store = harness.app.get(QueueStore);
      const redis = harness.redis.client();
      await redis.hdel(store.keys(product.id).users, 'once');
      redis.disconnect();
      expectContractError(await joinWith(product.id, 'once', { work }), 403, 'JOIN_WORK_INVALID');
      // The script claims a nonce once, however many joins carry it in one batch.
      const terms = { saleStartsAtMs: null, joinsPerAddress: 0, needsWork: true };
      const used = { nonce: 'AAAAAAAAAAAAAAAA', expiresAtMs: Date.now() + 60_000, squarings: 2_000 };
      const replies = await Promise.all(
        ['x1', 'x2'].map((userId) => store.defendedJoin(product.id, terms, { userId, nowMs: Date.now(), work: used })),
      );
      expect(replies.map((r) => (typeof r === 'string' ? r : 'ticket'))).toEqual(['ticket', 'work-invalid']);
    });

    it('refuses a malformed body with 400 VALIDATION_FAILED', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinWork: { squarings: 2_000 } } as never });
      for (const payload of [
        { work: 'x' },
        { work: { challenge: 'a' } },
        { work: { challenge: 'a', solution: 'b' } },
        { work: { challenge: 1, nonce: 'AAAAAAAAAAAAAAAA', solution: '2' } },
        { work: { challenge: 'a', nonce: 'short', solution: 'b' } },
        { extra: 1 },
        { work: { challenge: 'a', nonce: 'AAAAAAAAAAAAAAAA', solution: 'b', more: 1 } },
      ])
        expectContractError(await joinWith(product.id, 'malformed', payload), 400, 'VALIDATION_FAILED');
    });
  });

  describe('joinsPerAddress', () => {
    it('takes N tickets from one address, refuses the next with 429 RATE_LIMITED, and another address still joins', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinsPerAddress: 2 } as never });
      expect(product.waitingRoom).toMatchObject({ joinsPerAddress: 2 });
      const first = senderFrom(port, '127.0.0.2');
      const second = senderFrom(port, '127.0.0.3');
      const join = (send: Send, user: string) =>
        send({ method: 'POST', url: `/products/${product.id}/queue`, headers: auth(user) });
      expect((await join(first, 'addr-a')).status).toBe(200);
      expect((await join(first, 'addr-b')).status).toBe(200);
      const over = await join(first, 'addr-c');
      expectOverCap(over);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // Holding a ticket, a user gets it back from the same address; a refused join took nothing.
      expect((await join(first, 'addr-a')).status).toBe(200);
      expect((await join(second, 'addr-c')).status).toBe(200);
      expect((await join(second, 'addr-d')).status).toBe(200);
      expectOverCap(await join(second, 'addr-e'));
    });

    it('cannot be exceeded by joins racing from one address', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { joinsPerAddress: 3 } as never });
      const from = senderFrom(port, '127.0.0.4');
      const statuses = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          from({ method: 'POST', url: `/products/${product.id}/queue`, headers: auth(`race-${i}`) }).then(
            (r) => r.status,
          ),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    });

    const joinFrom = (send: Send, productId: string, user: string) =>
      send({ method: 'POST', url: `/products/${productId}/queue`, headers: auth(user) });
    const buy = async (productId: string, user: string, ticket: string) => {
      const admitted = await room.until(productId, ticket, ['ADMITTED']);
      expect((await room.purchase(productId, user, admitted.admission)).status).toBe(201);
      expect((await room.status(productId, ticket)).state).toBe('BOUGHT');
    };

    it('counts live tickets only: once a ticket of the address is bought, another user there joins', async () => {
      const product = await room.createProduct({
        stock: 5,
        perUserLimit: 1,
        waitingRoom: { admitPerSecond: 50, joinsPerAddress: 1 } as never,
      });
      const office = senderFrom(port, '127.0.0.6');
      const first = await joinFrom(office, product.id, 'office-a');
      expect(first.status).toBe(200);
      const waiting = await joinFrom(office, product.id, 'office-b');
      expectOverCap(waiting);
      // Not the time until the sale ends: at most the longest poll interval.
      expect(Number(waiting.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(waiting.headers['retry-after'])).toBeLessThanOrEqual(15);
      const ticket = (first.body as TicketStatus).ticket;
      await room.until(product.id, ticket, ['ADMITTED']);
      // Admitted and unexpired, it is still live.
      expectOverCap(await joinFrom(office, product.id, 'office-b'));
      await buy(product.id, 'office-a', ticket);
      const next = await joinFrom(office, product.id, 'office-b');
      expect(next.status).toBe(200);
      // The new ticket is live in turn; the bought one's holder gets their own ticket back, no new one.
      expectOverCap(await joinFrom(office, product.id, 'office-c'));
      expect((await joinFrom(office, product.id, 'office-a')).body).toMatchObject({ state: 'BOUGHT' });
    });

    it('counts live tickets only: once a ticket of the address lets its admission expire, another user there joins', async () => {
      const product = await room.createProduct({
        stock: 5,
        waitingRoom: { admitPerSecond: 50, admissionTtlS: 1, joinsPerAddress: 1 } as never,
      });
      const carrier = senderFrom(port, '127.0.0.7');
      const first = await joinFrom(carrier, product.id, 'nat-a');
      expect(first.status).toBe(200);
      expectOverCap(await joinFrom(carrier, product.id, 'nat-b'));
      await room.until(product.id, (first.body as TicketStatus).ticket, ['EXPIRED'], 5_000);
      expect((await joinFrom(carrier, product.id, 'nat-b')).status).toBe(200);
      expectOverCap(await joinFrom(carrier, product.id, 'nat-c'));
    });

    it('lets racing joins from one address hold exactly N live tickets, again once those are bought', async () => {
      const product = await room.createProduct({
        stock: 10,
        perUserLimit: 1,
        waitingRoom: { admitPerSecond: 50, joinsPerAddress: 2 } as never,
      });
      const from = senderFrom(port, '127.0.0.8');
      const race = async (round: string) => {
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) => joinFrom(from, product.id, `${round}-${i}`).then((r) => ({ i, r }))),
        );
        expect(answers.filter(({ r }) => r.status === 429)).toHaveLength(6);
        return answers
          .filter(({ r }) => r.status === 200)
          .map(({ i, r }) => ({ user: `${round}-${i}`, ticket: (r.body as TicketStatus).ticket }));
      };
      const held = await race('first');
      expect(held).toHaveLength(2);
      // One bought: one place frees, and a race for it takes exactly one.
      await buy(product.id, held[0].user, held[0].ticket);
      const one = await Promise.all(Array.from({ length: 6 }, (_, i) => joinFrom(from, product.id, `one-${i}`)));
      expect(one.filter((r) => r.status === 200)).toHaveLength(1);
      await buy(product.id, held[1].user, held[1].ticket);
      const again = await Promise.all(Array.from({ length: 6 }, (_, i) => joinFrom(from, product.id, `two-${i}`)));
      expect(again.filter((r) => r.status === 200)).toHaveLength(1);
      expectOverCap(await joinFrom(from, product.id, 'late'));
    });

    it('asks a refused join before the start to come back at the start', async () => {
      const product = await room.createProduct({
        stock: 5,
        saleStartsAt: new Date(Date.now() + 30_000).toISOString(),
        waitingRoom: { preQueueS: 60, joinsPerAddress: 1 } as never,
      });
      const from = senderFrom(port, '127.0.0.9');
      expect((await joinFrom(from, product.id, 'early-a')).status).toBe(200);
      const over = await joinFrom(from, product.id, 'early-b');
      expectOverCap(over);
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(25);
      expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(30);
    });
  });

  describe('requiredClaim', () => {
    it('lets in only tokens with the claim truthy, with 403 JOIN_CLAIM_REQUIRED otherwise', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { requiredClaim: 'email_verified' } as never });
      expect(product.waitingRoom).toMatchObject({ requiredClaim: 'email_verified' });
      const join = (claims: Record<string, unknown>) =>
        room.send({
          method: 'POST',
          url: `/products/${product.id}/queue`,
          headers: bearer(tokenWithClaims({ role: 'user', ...claims })),
        });
      expectContractError(await room.join(product.id, 'no-claim'), 403, 'JOIN_CLAIM_REQUIRED');
      expectContractError(await join({ sub: 'unverified', email_verified: false }), 403, 'JOIN_CLAIM_REQUIRED');
      expectContractError(await join({ sub: 'empty', email_verified: '' }), 403, 'JOIN_CLAIM_REQUIRED');
      expect((await join({ sub: 'verified', email_verified: true })).status).toBe(200);
      expectContractError(
        await room.api.createProductRaw({ waitingRoom: { requiredClaim: 'has space' } } as never, adminAuth()),
        400,
        'VALIDATION_FAILED',
      );
    });
  });

  it('leaves a product without defences joining as before', async () => {
    const product = await room.createProduct({ stock: 5, waitingRoom: {} });
    const from = senderFrom(port, '127.0.0.5');
    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        from({ method: 'POST', url: `/products/${product.id}/queue`, headers: auth(`plain-${i}`) }).then(
          (r) => r.status,
        ),
      ),
    );
    expect(statuses).toEqual(Array(6).fill(200));
  });
});
