import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { boundOffset, ClockReading, measureApiClockOffset, OffsetBounds } from './clock-offset';

/**
 * A simulated reference that shows whole seconds, `offsetMs` ahead of a simulated local clock
 * that moves only when a reading takes its round trip or the earliest sleeper wakes.
 */
function simulated(offsetMs: number, roundTripMs: number) {
  let local = 1_700_000_000_123;
  const sleepers: { ms: number; wake: () => void }[] = [];
  const read = async (): Promise<ClockReading> => {
    const sentMs = Math.floor(local);
    const seenAt = local + roundTripMs / 2 + offsetMs;
    local += roundTripMs;
    const second = Math.floor(seenAt / 1000) * 1000;
    return { sentMs, answeredMs: Math.floor(local), earliestMs: second, latestMs: second + 1000 };
  };
  const sleepUntil = (ms: number) => new Promise<void>((wake) => sleepers.push({ ms, wake }));
  /** Runs the measurement, waking one sleeper at a time in time order once everything else has settled. */
  const measure = async () => {
    let finished = false;
    const bounds = boundOffset(read, { now: () => local, sleepUntil }).finally(() => (finished = true));
    while (!finished) {
      await new Promise((settled) => setImmediate(settled));
      sleepers.sort((x, y) => x.ms - y.ms);
      const next = sleepers.shift();
      if (!next) continue;
      local = Math.max(local, next.ms);
      next.wake();
    }
    return bounds;
  };
  return { measure };
}

describe('the clock offset', () => {
  it('is bounded to a second by one reading of a whole-second clock', () => {
    const bounds = new OffsetBounds();
    bounds.add({ sentMs: 10_400, answeredMs: 10_410, earliestMs: 20_000, latestMs: 21_000 });
    expect([bounds.lowMs, bounds.highMs]).toEqual([20_000 - 10_411, 21_000 - 10_400]);
  });

  it('narrows to about a round trip once readings fall on both sides of a change of second', async () => {
    for (const offsetMs of [0, 1234.4, -987_654.3, 499.9]) {
      const bounds = await simulated(offsetMs, 3).measure();
      expect(bounds.lowMs).toBeLessThanOrEqual(offsetMs);
      expect(bounds.highMs).toBeGreaterThanOrEqual(offsetMs);
      expect(bounds.widthMs).toBeLessThan(8);
    }
  });

  it('refuses readings that no single offset explains (a clock that stepped, or several clocks)', () => {
    const bounds = new OffsetBounds();
    bounds.add({ sentMs: 0, answeredMs: 10, earliestMs: 5000, latestMs: 6000 });
    expect(() => bounds.add({ sentMs: 20, answeredMs: 30, earliestMs: 9000, latestMs: 10_000 })).toThrow(
      /answers disagree/,
    );
  });

  describe('against a real HTTP server on this machine', () => {
    let server: Server;
    let url: string;
    let sendDate = true;
    beforeAll(async () => {
      server = createServer((req, res) => {
        res.sendDate = sendDate;
        res.end('{"status":"ok"}');
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((done) => server.close(done)));

    it('finds the same clock within its bound, to a few milliseconds', async () => {
      const clock = await measureApiClockOffset(url);
      expect(Math.abs(clock.offsetMs)).toBeLessThanOrEqual(clock.uncertaintyMs);
      expect(clock.uncertaintyMs).toBeLessThan(15);
      expect(clock).toMatchObject({ against: `date-header ${url}`, samples: expect.any(Number) });
      expect(clock.samples).toBeGreaterThan(8);
    }, 15_000);

    it('says so when the answers carry no Date header', async () => {
      sendDate = false;
      await expect(measureApiClockOffset(url)).rejects.toThrow(/without a Date header/);
      sendDate = true;
    });
  });
});
