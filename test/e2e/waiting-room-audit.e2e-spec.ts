import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { expectContractError, injectSender, sleep } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { BeaconServer } from '../support/beacon-server';
import { AuditFile, fetchAudit, verifyAuditFile } from '../support/queue-audit';
import { adminAuth } from '../support/tokens';
import { eventually, TicketStatus, WaitingRoomClient } from '../support/waiting-room-client';

const HEX64 = /^[0-9a-f]{64}$/;
const WAIT_MS = 1500;
const iso = (ms: number) => new Date(ms).toISOString();
const clone = (file: AuditFile): AuditFile => JSON.parse(JSON.stringify(file)) as AuditFile;

interface Committed {
  hash: string;
  seedCommitment: string;
  beacon: { round: number; publicKey: string; dueAt: string } | null;
}

/**
 * A sale nobody can rig, from outside: its commitment (the seed's hash and the beacon round due at
 * the start) is public from creation, before any join; after the start the audit file reveals the
 * seed, the beacon's signed round (or the documented fallback), every ticket's hash, place and
 * admission, and the admin actions' hash chain; the independent verifier checks it offline and
 * names the first thing changed. The beacon is the test's own (its BLS key), never the network.
 */
describe('a sale nobody can rig', () => {
  jest.setTimeout(60_000);
  let beacon: BeaconServer;
  let harness: AppHarness;
  let room: WaitingRoomClient;
  let db: Client;
  let sale: { productId: string; commitment: Committed; file: AuditFile; tickets: TicketStatus[] };

  beforeAll(async () => {
    beacon = await BeaconServer.start(1);
    harness = await startApp({
      RATE_LIMIT_PER_SECOND: '1000',
      QUEUE_SUMMARY_PER_SECOND_PER_ADDRESS: '100000',
      WAITING_ROOM_TICK_MS: '50',
      ...beacon.env(WAIT_MS),
    });
    room = new WaitingRoomClient(injectSender(harness.app));
    db = new Client({ connectionString: harness.database.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await harness?.close();
    await beacon?.stop();
  });

  /** A sale starting in `inMs` whose commitment the product shows; the beacon round it names. */
  async function createSale(
    inMs: number,
    stock: number,
  ): Promise<{ productId: string; commitment: Committed; startsAt: number }> {
    const startsAt = Date.now() + inMs;
    const product = await room.createProduct({
      stock,
      saleStartsAt: iso(startsAt),
      waitingRoom: { admitPerSecond: 100, preQueueS: 600 },
    });
    return {
      productId: product.id,
      commitment: (product as unknown as { saleCommitment: Committed }).saleCommitment,
      startsAt,
    };
  }

  const revealed = async (productId: string): Promise<AuditFile> => {
    let file: AuditFile | undefined;
    await eventually(
      async () => (file = (await fetchAudit(room.send, productId)).file).reveal !== null,
      10_000,
      'the audit to reveal the draw',
    );
    return file!;
  };

  it('publishes the commitment before the first join and, after the start, an audit file the verifier passes', async () => {
    const { productId, commitment, startsAt } = await createSale(2500, 6);
    // Before anyone joins: the commitment on the product and on the audit route, nothing revealed.
    expect(commitment).toMatchObject({
      hash: expect.stringMatching(HEX64),
      seedCommitment: expect.stringMatching(HEX64),
    });
    expect(commitment.beacon).toMatchObject({ publicKey: beacon.publicKey });
    // The round due at the start: the first at or after it, never one public while joins are open.
    expect(beacon.roundTimeMs(commitment.beacon!.round)).toBeGreaterThanOrEqual(startsAt - 999);
    expect(beacon.roundTimeMs(commitment.beacon!.round - 1)).toBeLessThan(startsAt);
    const before = await fetchAudit(room.send, productId);
    expect(before.status).toBe(200);
    expect(before.file).toMatchObject({ commitment, reveal: null, tickets: [] });
    expect((await room.summary(productId)).seedCommitment).toBe(commitment.seedCommitment);
    expect(((await room.summary(productId)) as unknown as { beacon: string }).beacon).toBe('PENDING');

    expect((await room.api.setStock(productId, 5)).status).toBe(200); // an admin action, chained
    const tickets = await Promise.all(Array.from({ length: 12 }, (_, i) => room.joined(productId, `audited-${i}`)));
    await sleep(startsAt - Date.now());
    let file = await revealed(productId);
    await eventually(
      async () => (file = (await fetchAudit(room.send, productId)).file).queue!.served === 5,
      10_000,
      'five admissions',
    );

    expect(file.reveal).toMatchObject({
      beacon: 'VERIFIED',
      round: commitment.beacon!.round,
      signature: beacon.sign(commitment.beacon!.round),
    });
    expect(((await room.summary(productId)) as unknown as { beacon: string }).beacon).toBe('VERIFIED');
    expect(file.adminActions.map((a) => [a.action, a.details.stock])).toEqual([
      ['create', 6],
      ['set-stock', 5],
    ]);
    // Each buyer's row is the one with their ticket's hash, at the place their poll shows.
    for (const ticket of tickets) {
      const row = file.tickets.find((t) => t.ticketHash === createHash('sha256').update(ticket.ticket).digest('hex'))!;
      expect(row.ticketId).toBe(ticket.ticketId);
      const status = await room.status(productId, ticket.ticket);
      if (status.state === 'WAITING') expect(row.place! - file.queue!.served).toBe(status.position);
      else expect(row.place).toBeLessThanOrEqual(file.queue!.served);
    }
    const verdict = await verifyAuditFile(file, ['--sale-commitment', commitment.hash, '--ticket', tickets[3].ticket]);
    expect(verdict).toMatchObject({ status: 0 });
    expect(verdict.out).toMatch(/^PASS/);
    const mine = file.tickets.find((t) => t.ticketId === tickets[3].ticketId)!;
    expect(verdict.out).toContain(`YOUR TICKET ${tickets[3].ticketId}: place ${mine.place}`);
    sale = { productId, commitment, file, tickets };
  });

  it('names a revealed seed changed after the fact', async () => {
    const file = clone(sale.file);
    file.reveal!.seed = createHash('sha256').update('another seed').digest('hex');
    const verdict = await verifyAuditFile(file, ['--sale-commitment', sale.commitment.hash]);
    expect(verdict.status).toBe(1);
    expect(verdict.out).toMatch(/^FAIL seed: /);
  });

  it('names a beacon value changed after the fact', async () => {
    const file = clone(sale.file);
    // A real signature of the same chain, of another round: well-formed, and still refused.
    file.reveal!.signature = beacon.sign(file.reveal!.round! + 1);
    const verdict = await verifyAuditFile(file, ['--sale-commitment', sale.commitment.hash]);
    expect(verdict.status).toBe(1);
    expect(verdict.out).toMatch(/^FAIL beacon: the signature is not the chain's signature of round/);
  });

  it("names a ticket's position changed after the fact", async () => {
    const file = clone(sale.file);
    const [a, b] = [file.tickets[0], file.tickets[1]];
    [a.place, b.place] = [b.place, a.place];
    const verdict = await verifyAuditFile(file, ['--sale-commitment', sale.commitment.hash]);
    expect(verdict.status).toBe(1);
    expect(verdict.out).toMatch(/^FAIL ticket 1: place \d+ in the file, \d+ by the seeded order/);
  });

  it('names an admin action changed after the fact', async () => {
    const file = clone(sale.file);
    file.adminActions[1].details.stock = 500;
    const verdict = await verifyAuditFile(file, ['--sale-commitment', sale.commitment.hash]);
    expect(verdict.status).toBe(1);
    expect(verdict.out).toMatch(/^FAIL admin action 2 \(set-stock\): its content hashes to/);
  });

  it('names a commitment other than the one published before the joins', async () => {
    const verdict = await verifyAuditFile(sale.file, ['--sale-commitment', 'ab'.repeat(32)]);
    expect(verdict.status).toBe(1);
    expect(verdict.out).toMatch(/^FAIL commitment: /);
  });

  it('starts on the documented fallback when the beacon is late, and says so in the audit file and the summary', async () => {
    const { productId, commitment, startsAt } = await createSale(1500, 3);
    const round = commitment.beacon!.round;
    beacon.withhold(round);
    await Promise.all(Array.from({ length: 6 }, (_, i) => room.joined(productId, `late-${i}`)));
    await sleep(startsAt - Date.now());
    const file = await revealed(productId);
    // Not before the round was due and waited for.
    expect(Date.now()).toBeGreaterThanOrEqual(beacon.roundTimeMs(round) + WAIT_MS);
    expect(file.reveal).toMatchObject({ beacon: 'MISSING', round, signature: null, shuffleSeed: file.reveal!.seed });
    expect(((await room.summary(productId)) as unknown as { beacon: string }).beacon).toBe('MISSING');
    const verdict = await verifyAuditFile(file, ['--sale-commitment', commitment.hash]);
    expect(verdict.status).toBe(0);
    expect(verdict.out).toMatch(/WARNING beacon MISSING: round \d+ was not had by the deadline/);

    // The round arriving now changes nothing: the draw is decided once.
    beacon.release(round);
    const late = await room.send({
      method: 'POST',
      url: `/admin/products/${productId}/beacon`,
      headers: adminAuth(),
      payload: { round, signature: beacon.sign(round) },
    });
    expectContractError(late, 409, 'BEACON_CLOSED');
    expect((await fetchAudit(room.send, productId)).file.reveal).toMatchObject({ beacon: 'MISSING' });
  });

  it("takes the committed round from an admin when the beacon URL lacks it, after checking it's the chain's", async () => {
    const { productId, commitment } = await createSale(1200, 3);
    const round = commitment.beacon!.round;
    beacon.withhold(round);
    await room.joined(productId, 'posted-0');
    await sleep(beacon.roundTimeMs(round) - Date.now() + 50);
    const post = (signature: string, r = round) =>
      room.send({
        method: 'POST',
        url: `/admin/products/${productId}/beacon`,
        headers: adminAuth(),
        payload: { round: r, signature },
      });
    expectContractError(await post(beacon.sign(round + 1)), 422, 'BEACON_INVALID');
    expectContractError(await post(beacon.sign(round + 1), round + 1), 422, 'BEACON_INVALID');
    const accepted = await post(beacon.sign(round));
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ beacon: 'VERIFIED', round, signature: beacon.sign(round) });
    const file = await revealed(productId);
    expect(file.reveal).toMatchObject({ beacon: 'VERIFIED', round });
    expect(await verifyAuditFile(file, ['--sale-commitment', commitment.hash])).toMatchObject({
      status: 0,
      out: expect.stringMatching(/^PASS/),
    });
  });

  it('keeps what decides the order as committed: Postgres refuses to change it, or the draws and admin actions', async () => {
    const { productId } = sale;
    await expect(
      db.query('UPDATE products SET sale_starts_at = now() WHERE id = $1', [productId]),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      db.query(
        "UPDATE products SET waiting_room_seed = '\\x00'::bytea || substring(waiting_room_seed from 2) WHERE id = $1",
        [productId],
      ),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      db.query('UPDATE sale_draws SET beacon = $2 WHERE product_id = $1', [productId, 'MISSING']),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      db.query("UPDATE sale_admin_actions SET details = '{}' WHERE product_id = $1", [productId]),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(db.query('DELETE FROM sale_admin_actions WHERE product_id = $1', [productId])).rejects.toMatchObject({
      code: '23514',
    });
  });
});
