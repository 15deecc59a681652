import { PollReply } from './scripts/poll';
import { describeTicket, waitingPollMs } from './ticket-status';

const NOW = 1_800_000_000_000;
const reply = (over: Partial<PollReply>): PollReply => ({
  place: 10,
  served: 4,
  seq: 20,
  pre: 0,
  bought: false,
  admissionExpiresAt: -1,
  soldOut: false,
  rate: 2,
  epoch: 'e1',
  ...over,
});
const describe1 = (
  over: Partial<PollReply>,
  saleStartsAtMs: number | null = null,
  random = () => 0.5,
  pollsPerSecond = 10_000,
) => describeTicket({ reply: reply(over), nowMs: NOW, saleStartsAtMs, fallbackRate: 1, pollsPerSecond, random });

describe('describeTicket', () => {
  it('counts the position from the serving counter and the ETA from the pace', () => {
    expect(describe1({})).toMatchObject({ state: 'WAITING', position: 6, etaS: 3 });
    expect(describe1({}, NOW + 60_000)).toMatchObject({ state: 'WAITING', etaS: 63 });
  });

  it('puts an unshuffled pre-queue ticket at the end of the pre-queue', () => {
    expect(describe1({ place: -1, served: 0, pre: -1, seq: 50 })).toMatchObject({ state: 'WAITING', position: 50 });
  });

  it('admits a served place whose admission is outstanding, expires one whose time ran out', () => {
    expect(describe1({ place: 3, admissionExpiresAt: NOW + 60_000 })).toMatchObject({
      state: 'ADMITTED',
      position: 0,
      admissionExpiresAtMs: NOW + 60_000,
    });
    expect(describe1({ place: 3, admissionExpiresAt: NOW - 1 })).toMatchObject({ state: 'EXPIRED', position: 0 });
    expect(describe1({ place: 3, admissionExpiresAt: -1 })).toMatchObject({ state: 'EXPIRED' });
  });

  it('says BOUGHT before SOLD_OUT, and SOLD_OUT before anything else', () => {
    expect(describe1({ place: 3, bought: true, soldOut: true })).toMatchObject({ state: 'BOUGHT' });
    expect(describe1({ place: 3, soldOut: true, admissionExpiresAt: NOW + 1000 })).toMatchObject({ state: 'SOLD_OUT' });
    expect(describe1({ soldOut: true })).toMatchObject({ state: 'SOLD_OUT' });
  });

  it('spreads pollAfterMs by ±25 % and polls sooner near the front', () => {
    const low = describe1({ place: 1000, served: 0 }, null, () => 0).pollAfterMs;
    const high = describe1({ place: 1000, served: 0 }, null, () => 1).pollAfterMs;
    expect(high / low).toBeCloseTo(1.25 / 0.75, 2);
    expect(describe1({ place: 5, served: 4 }).pollAfterMs).toBeLessThan(
      describe1({ place: 200, served: 4 }).pollAfterMs,
    );
  });

  it('has every waiting ticket poll within 750 ms while the queue is at most 0.6 x the poll budget', () => {
    // 5,000 waiting at 10,000 polls/s: even the last, hours from admission, polls within 750 ms.
    const last = (random: () => number) =>
      describe1({ place: 5_000, served: 0, seq: 5_000, rate: 0.5 }, null, random).pollAfterMs;
    expect(last(() => 1)).toBeLessThanOrEqual(750);
    expect(last(() => 0)).toBeGreaterThanOrEqual(450);
  });

  it('stretches the interval with the queue beyond the poll budget, keeping the poll rate near it', () => {
    // 100,000 waiting at 10,000 polls/s: a ticket far back polls every 10 s on average.
    expect(describe1({ place: 90_000, served: 0, seq: 100_000, rate: 50 }).pollAfterMs).toBe(10_000);
    const waiting = 100_000;
    const meanRate = Array.from(
      { length: waiting },
      (_, i) => 1000 / waitingPollMs(Math.ceil((i + 1) / 50), waiting, 10_000),
    ).reduce((a, b) => a + b, 0);
    expect(meanRate).toBeGreaterThan(10_000);
    expect(meanRate).toBeLessThan(11_000); // the front's quicker polls add under 10%
    expect(waitingPollMs(10_000, 1_000_000, 10_000)).toBe(15_000); // and never past 15 s
  });

  it('polls after half the time left before the sale starts, when nothing can change', () => {
    expect(describe1({ place: -1, served: 0, pre: -1, seq: 50 }, NOW + 600_000).pollAfterMs).toBe(15_000);
    expect(describe1({ place: -1, served: 0, pre: -1, seq: 50 }, NOW + 4_000).pollAfterMs).toBe(2_000);
  });
});
