import { PollReply } from './scripts/poll';
import { describeTicket } from './ticket-status';

const NOW = 1_800_000_000_000;
const reply = (over: Partial<PollReply>): PollReply => ({ place: 10, served: 4, seq: 20, pre: 0, bought: false, admissionExpiresAt: -1, soldOut: false, rate: 2, epoch: 'e1', ...over });
const describe1 = (over: Partial<PollReply>, saleStartsAtMs: number | null = null, random = () => 0.5) =>
  describeTicket({ reply: reply(over), nowMs: NOW, saleStartsAtMs, fallbackRate: 1, random });

describe('describeTicket', () => {
  it('counts the position from the serving counter and the ETA from the pace', () => {
    expect(describe1({})).toMatchObject({ state: 'WAITING', position: 6, etaS: 3 });
    expect(describe1({}, NOW + 60_000)).toMatchObject({ state: 'WAITING', etaS: 63 });
  });

  it('puts an unshuffled pre-queue ticket at the end of the pre-queue', () => {
    expect(describe1({ place: -1, served: 0, pre: -1, seq: 50 })).toMatchObject({ state: 'WAITING', position: 50 });
  });

  it('admits a served place whose admission is outstanding, expires one whose time ran out', () => {
    expect(describe1({ place: 3, admissionExpiresAt: NOW + 60_000 })).toMatchObject({ state: 'ADMITTED', position: 0, admissionExpiresAtMs: NOW + 60_000 });
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
    expect(describe1({ place: 5, served: 4 }).pollAfterMs).toBeLessThan(describe1({ place: 200, served: 4 }).pollAfterMs);
  });
});
