import { retryAfterAddressCap } from './waiting-room.service';

describe('the Retry-After of a join refused over joinsPerAddress', () => {
  const now = 1_000_000;

  it('is the time until the start before it: no ticket ends earlier', () => {
    expect(retryAfterAddressCap(now + 29_400, null, now)).toBe(30);
    expect(retryAfterAddressCap(now + 10, null, now)).toBe(1);
    expect(retryAfterAddressCap(now + 7 * 86_400_000, null, now)).toBe(86_400);
  });

  it("after the start, is the time until the soonest admission of the address's tickets expires, at most 15 s", () => {
    expect(retryAfterAddressCap(null, now + 4_200, now)).toBe(5);
    expect(retryAfterAddressCap(now - 1, now + 100, now)).toBe(1);
    expect(retryAfterAddressCap(now - 1, now + 120_000, now)).toBe(15);
    // None admitted yet: any may be admitted and bought at any moment; its holder polls at least every 15 s.
    expect(retryAfterAddressCap(null, null, now)).toBe(15);
  });
});
