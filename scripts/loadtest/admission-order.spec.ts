import { createHmac } from 'node:crypto';
import { admissionOrder, queueOrder } from './admission-order';
import { BuyerTrace } from './waiting-room-trace';

/** A buyer whose ticket was taken at `joinedMs`, last WAITING at `waitingMs`, seen ADMITTED at `admittedMs`. */
const trace = (
  ticketId: string,
  joinedMs: number,
  waitingMs: number | undefined,
  admittedMs: number | undefined,
): BuyerTrace => ({
  userId: `u${ticketId}`,
  ticketId,
  joinCompleteMs: joinedMs,
  lastWaitingInvokeMs: waitingMs,
  admittedAtMs: admittedMs,
  final: admittedMs === undefined ? 'SOLD_OUT' : 'BOUGHT',
  answers: [{ op: 'queueJoin', invokeMs: joinedMs - 1, completeMs: joinedMs, status: 200, state: 'WAITING', ticketId }],
});

describe('admission order against queue order', () => {
  it('counts no inversion when overlapping windows could be in order', () => {
    // Ticket 2 seen admitted (at 150) before ticket 1 was (at 300), but 1 was last WAITING at 100: no proof.
    const result = admissionOrder(
      queueOrder([trace('2', 10, 90, 150), trace('1', 5, 100, 300), trace('3', 20, 400, 500)], null, null),
      0,
    );
    expect(result).toMatchObject({ compared: 3, admitted: 3, inversions: 0 });
    expect(result.points.map(([rank]) => rank)).toEqual([1, 2, 3]);
  });

  it('counts each pair whose earlier ticket was still waiting after the later one was admitted', () => {
    // 1 was WAITING at 500 while 2 (admitted by 200) and 3 (by 300) were already in: two inversions.
    const result = admissionOrder(
      queueOrder(
        [
          trace('1', 1, 500, 600),
          trace('2', 2, 100, 200),
          trace('3', 3, 150, 300),
          trace('4', 4, undefined, undefined),
        ],
        null,
        null,
      ),
      0,
    );
    expect(result.inversions).toBe(2);
    expect(result.examples[0]).toMatch(/ticket 1 .*still WAITING.*ticket 2 ADMITTED/);
  });

  it('orders the pre-queue by the HMAC of the published seed, ahead of tickets taken after the start', () => {
    const seed = 'ab'.repeat(32);
    const hmac = (id: string) => createHmac('sha256', Buffer.from(seed, 'hex')).update(id).digest('hex');
    const pre = ['1', '2', '3', '4'];
    const traces = [...pre.map((id) => trace(id, 50, undefined, undefined)), trace('5', 2000, undefined, undefined)];
    const order = queueOrder(traces, 1000, seed).map((t) => t.ticketId);
    expect(order).toEqual([...[...pre].sort((a, b) => (hmac(a) < hmac(b) ? -1 : 1)), '5']);
    // Without the seed the pre-queue cannot be placed, so it is left out rather than guessed.
    expect(queueOrder(traces, 1000, null).map((t) => t.ticketId)).toEqual(['5']);
  });
});
