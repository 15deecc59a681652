import { expectContractError, injectSender, sleep } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { adminAuth } from '../support/tokens';
import { WaitingRoomClient } from '../support/waiting-room-client';
import { QueueStore } from '../../apps/api/src/waiting-room/queue-store';

/** Joining, polling and buying through a product's waiting room, judged from the outside. */
describe('waiting room', () => {
  let harness: AppHarness;
  let room: WaitingRoomClient;

  beforeAll(async () => {
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000', QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000', WAITING_ROOM_TICK_MS: '50' });
    room = new WaitingRoomClient(injectSender(harness.app));
  });
  afterAll(() => harness.close());

  describe('creating a product with a waiting room', () => {
    it('shows the settings with their defaults on the product', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 10 } });
      expect(product.waitingRoom).toEqual({ admitPerSecond: 10, admissionTtlS: 120, preQueueS: 0 });
      expect(((await room.api.getProduct(product.id)).body as { waitingRoom?: unknown }).waitingRoom).toEqual({ admitPerSecond: 10, admissionTtlS: 120, preQueueS: 0 });
    });

    it('shows no waiting room on a product created without one', async () => {
      const product = await room.createProduct({ stock: 5 });
      expect(product).not.toHaveProperty('waitingRoom');
    });

    it.each([
      [{ admitPerSecond: 0 }],
      [{ admitPerSecond: 1.5 }],
      [{ admissionTtlS: 0 }],
      [{ admissionTtlS: '60' }],
      [{ preQueueS: -1 }],
      [{ extra: true }],
      ['fast'],
      [[]],
    ])('refuses waitingRoom %j with 400 VALIDATION_FAILED', async (waitingRoom) => {
      const res = await room.api.createProductRaw({ waitingRoom } as never, adminAuth());
      expectContractError(res, 400, 'VALIDATION_FAILED');
    });
  });

  describe('joining', () => {
    it('gives the same ticket and place to a user who joins twice, and a different one to another user', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 1 } });
      const first = await room.joined(product.id, 'joiner-a');
      await room.joined(product.id, 'joiner-c');
      const again = await room.joined(product.id, 'joiner-a');
      const other = await room.joined(product.id, 'joiner-b');
      expect(again.ticket).toBe(first.ticket);
      expect(again.ticketId).toBe(first.ticketId);
      expect(again.position).toBe(first.position);
      expect(other.position).toBe(first.position + 2);
      expect(other.ticketId).not.toBe(first.ticketId);
      expect(first.ticket).not.toBe(other.ticket);
    });

    it('serves tickets of users with long ids (the ticket stays a short path parameter)', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 50 } });
      const longId = `user-${'x'.repeat(120)}`;
      const joined = await room.joined(product.id, longId);
      expect(joined.ticket).not.toContain(longId);
      const admitted = await room.until(product.id, joined.ticket, ['ADMITTED']);
      expect((await room.purchase(product.id, longId, admitted.admission)).status).toBe(201);
    });

    it('answers 404 PRODUCT_NOT_FOUND for an unknown product and 404 for a product without a waiting room', async () => {
      expectContractError(await room.join('987654321', 'someone'), 404, 'PRODUCT_NOT_FOUND');
      const plain = await room.createProduct({ stock: 5 });
      expectContractError(await room.join(plain.id, 'someone'), 404, 'NOT_FOUND');
      expectContractError(await room.send({ method: 'GET', url: `/products/${plain.id}/queue` }), 404, 'NOT_FOUND');
    });

    it('answers 403 SALE_NOT_ACTIVE before the pre-queue opens, and takes tickets once it is open', async () => {
      const startsAt = new Date(Date.now() + 3600_000).toISOString();
      const closed = await room.createProduct({ stock: 5, saleStartsAt: startsAt, waitingRoom: { preQueueS: 60 } });
      expectContractError(await room.join(closed.id, 'early'), 403, 'SALE_NOT_ACTIVE');
      const open = await room.createProduct({ stock: 5, saleStartsAt: startsAt, waitingRoom: { preQueueS: 7200 } });
      const ticket = await room.joined(open.id, 'early');
      expect(ticket.state).toBe('WAITING');
      expect(ticket.etaS).toBeGreaterThanOrEqual(3500);
    });

    it('needs a user token', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: {} });
      expectContractError(await room.send({ method: 'POST', url: `/products/${product.id}/queue` }), 401, 'UNAUTHENTICATED');
    });
  });

  describe('polling', () => {
    it('refuses a forged, altered or foreign ticket with 400 TICKET_INVALID', async () => {
      const product = await room.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 1 } });
      const other = await room.createProduct({ stock: 5, waitingRoom: { admitPerSecond: 1 } });
      const { ticket } = await room.joined(product.id, 'poller');
      const [kind, pid, epoch, number, user, signature] = ticket.split('.');
      const tampered = [
        [kind, pid, epoch, String(Number(number) + 1), user, signature].join('.'),
        [kind, pid, epoch, number, 'AAAAAAAAAAAAAAAA', signature].join('.'),
        [kind, pid, 'AAAAAAAA', number, user, signature].join('.'),
        // The first character, changed to another (the last ones may already be what a fixed edit would write).
        [kind, pid, epoch, number, user, `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`].join('.'),
        'not-a-ticket',
      ];
      for (const bad of tampered) expectContractError(await room.poll(product.id, bad), 400, 'TICKET_INVALID');
      expectContractError(await room.poll(other.id, ticket), 400, 'TICKET_INVALID');
    });

    it('answers the contract fields, with pollAfterMs spread between buyers', async () => {
      const product = await room.createProduct({ stock: 1, waitingRoom: { admitPerSecond: 1, admissionTtlS: 600 } });
      const tickets = await Promise.all(Array.from({ length: 12 }, (_, i) => room.joined(product.id, `spread-${i}`)));
      const last = await room.status(product.id, tickets[11].ticket);
      expect(last).toEqual({ ticket: tickets[11].ticket, ticketId: tickets[11].ticketId, state: 'WAITING', position: expect.any(Number), etaS: expect.any(Number), pollAfterMs: expect.any(Number) });
      expect(last.position).toBeGreaterThan(1);
      const polls = await Promise.all(tickets.slice(2).map((t) => room.status(product.id, t.ticket)));
      expect(new Set(polls.map((p) => p.pollAfterMs)).size).toBeGreaterThan(3);
    });
  });

  describe('buying', () => {
    it('admits, buys with the admission, then shows BOUGHT', async () => {
      const product = await room.createProduct({ stock: 3, waitingRoom: { admitPerSecond: 50 } });
      const joined = await room.joined(product.id, 'buyer-1');
      const admitted = await room.until(product.id, joined.ticket, ['ADMITTED']);
      expect(admitted.position).toBe(0);
      expect(Date.parse(admitted.admissionExpiresAt!)).toBeGreaterThan(Date.now() + 100_000);
      const res = await room.purchase(product.id, 'buyer-1', admitted.admission);
      expect(res.status).toBe(201);
      expect((await room.status(product.id, joined.ticket)).state).toBe('BOUGHT');
    });

    it('refuses a purchase without an Admission, with another user\'s, for another product, or forged: 403 NOT_ADMITTED, nothing sold', async () => {
      const product = await room.createProduct({ stock: 3, waitingRoom: { admitPerSecond: 50 } });
      const other = await room.createProduct({ stock: 3, waitingRoom: { admitPerSecond: 50 } });
      const mine = await room.until(product.id, (await room.joined(product.id, 'holder')).ticket, ['ADMITTED']);
      const elsewhere = await room.until(other.id, (await room.joined(other.id, 'holder')).ticket, ['ADMITTED']);
      expectContractError(await room.purchase(product.id, 'holder'), 403, 'NOT_ADMITTED');
      expectContractError(await room.purchase(product.id, 'stranger', mine.admission), 403, 'NOT_ADMITTED');
      expectContractError(await room.purchase(product.id, 'holder', elsewhere.admission), 403, 'NOT_ADMITTED');
      expectContractError(await room.purchase(product.id, 'holder', `${mine.admission!.slice(0, -3)}xyz`), 403, 'NOT_ADMITTED');
      expect((await room.api.getProduct(product.id)).body.stock).toBe(3);
      expect((await room.purchase(product.id, 'holder', mine.admission)).status).toBe(201);
    });

    it('gives the admission back when the purchase is refused, so it can still buy', async () => {
      const product = await room.createProduct({ stock: 3, perUserLimit: 1, waitingRoom: { admitPerSecond: 50 } });
      const joined = await room.joined(product.id, 'refused-once');
      const admitted = await room.until(product.id, joined.ticket, ['ADMITTED']);
      expectContractError(await room.purchase(product.id, 'refused-once', admitted.admission, 2), 409, 'PER_USER_LIMIT');
      expect((await room.status(product.id, joined.ticket)).state).toBe('ADMITTED');
      expect((await room.summary(product.id)).admitted).toBe(1);
      expect((await room.purchase(product.id, 'refused-once', admitted.admission)).status).toBe(201);
      expect((await room.summary(product.id)).admitted).toBe(0);
    });

    it('leaves products without a waiting room as they were: bought without any Admission, the queue untouched', async () => {
      const product = await room.createProduct({ stock: 2 });
      const store = harness.app.get(QueueStore);
      const calls = [jest.spyOn(store, 'claim'), jest.spyOn(store, 'receipt'), jest.spyOn(store, 'release')];
      try {
        const res = await room.purchase(product.id, 'plain-buyer');
        expect(res.status).toBe(201);
        for (const call of calls) expect(call).not.toHaveBeenCalled();
      } finally {
        calls.forEach((call) => call.mockRestore());
      }
      expect((await room.api.getProduct(product.id)).body.stock).toBe(1);
    });
  });

  describe('selling out', () => {
    it('answers SOLD_OUT to every poll within 1 s of the last unit, and 409 SOLD_OUT to new joiners', async () => {
      const product = await room.createProduct({ stock: 2, waitingRoom: { admitPerSecond: 100 } });
      const tickets = await Promise.all(['so-1', 'so-2', 'so-3', 'so-4'].map((user) => room.joined(product.id, user)));
      const first = await room.until(product.id, tickets[0].ticket, ['ADMITTED']);
      const second = await room.until(product.id, tickets[1].ticket, ['ADMITTED']);
      expect((await room.purchase(product.id, 'so-1', first.admission)).status).toBe(201);
      expect((await room.purchase(product.id, 'so-2', second.admission)).status).toBe(201);
      const lastUnitAt = Date.now();
      for (const t of tickets.slice(2)) await room.until(product.id, t.ticket, ['SOLD_OUT'], 1000);
      expect(Date.now() - lastUnitAt).toBeLessThanOrEqual(1000);
      expect((await room.status(product.id, tickets[0].ticket)).state).toBe('BOUGHT');
      expectContractError(await room.join(product.id, 'so-late'), 409, 'SOLD_OUT');
      expect((await room.summary(product.id)).soldOut).toBe(true);
      await sleep(150); // the leader has since seen the stock at 0 too
      expect((await room.summary(product.id)).admitted).toBe(0);
    });
  });
});
