import { commandTimeUs, diff, ServerSnapshot } from './server-stats';

const at = (calls: Record<string, number>, usec: Record<string, number>): ServerSnapshot => ({ totalCommands: 0, calls, usec, cpuSeconds: 0 });

describe('commandTimeUs', () => {
  it("counts the commands a client sent, whose time includes a script's inner calls, once", () => {
    const before = at({ evalsha: 10, get: 10, set: 4 }, { evalsha: 100, get: 10, set: 8 });
    const after = at({ evalsha: 30, get: 20, set: 14, del: 10 }, { evalsha: 400, get: 25, set: 28, del: 12 });
    const slice = diff(before, after);
    // evalsha ran the gets and dels inside its 300 µs; the client sent the sets itself.
    expect(commandTimeUs(slice, { evalsha: 20, SET: 10 })).toBe(320);
  });

  it('leaves out commands no call of which fell in the slice', () => {
    const slice = diff(at({ evalsha: 5, info: 1 }, { evalsha: 50, info: 30 }), at({ evalsha: 5, info: 2 }, { evalsha: 50, info: 61 }));
    expect(slice.usec).toEqual({ info: 31 });
    expect(commandTimeUs(slice, { evalsha: 1 })).toBe(0);
  });
});
