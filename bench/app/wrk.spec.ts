import { readFileSync } from 'node:fs';
import { processCpuSeconds, CpuMeter } from './proc-cpu';
import { parseWrkOutput } from './wrk';

describe('parseWrkOutput', () => {
  const output = `Running 10s test @ http://127.0.0.1:3000/x
  2 threads and 100 connections

WRK_RESULT {"requests":1000,"durationUs":2000000,"p50Us":1500,"p99Us":9000,"maxUs":12000,"socketErrors":2,"timeouts":1,"byAnswer":{"201":900,"503 OVERLOADED":60,"409 SOLD_OUT":40}}
`;

  it('reads the counts by answer, folds them by status and gives latencies in ms', () => {
    const result = parseWrkOutput(output);
    expect(result.byAnswer).toEqual({ '201': 900, '503 OVERLOADED': 60, '409 SOLD_OUT': 40 });
    expect(result.byStatus).toEqual({ '201': 900, '503': 60, '409': 40 });
    expect(result).toMatchObject({ requests: 1000, seconds: 2, perSecond: 500, ok2xx: 900, p50: 1.5, p99: 9, max: 12, errors: 3 });
  });

  it('fails loudly when wrk printed no result line', () => {
    expect(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused')).toThrow('wrk printed no result');
  });
});

describe('CpuMeter', () => {
  it('counts the CPU a process burns between start and stop', async () => {
    const meter = new CpuMeter(() => [process.pid]);
    await meter.start();
    const before = processCpuSeconds(process.pid);
    let x = 0;
    while (processCpuSeconds(process.pid) - before < 0.05) x += Math.sqrt(x + 1);
    // The meter started first, so it saw at least the loop's 0.05 s; both are sums of clock ticks
    // divided in floating point, which can land a hair below (0.04999999999999938 once).
    expect(await meter.stop()).toBeGreaterThanOrEqual(0.05 - 1e-9);
  });

  // The kernel's share of a loop: arithmetic stays in user space, reading a /proc file (as the
  // loop's own check of its CPU does) is mostly system calls. Fields read the wrong way round
  // would give the arithmetic the larger share.
  const kernelShareOf = async (step: () => void): Promise<number> => {
    const meter = new CpuMeter(() => [process.pid]);
    await meter.start();
    const before = processCpuSeconds(process.pid);
    while (processCpuSeconds(process.pid) - before < 0.2) step();
    await meter.stop();
    return meter.systemShare();
  };

  it('splits the CPU into user and kernel time', async () => {
    let x = 0;
    // Enough arithmetic per step that the loop's own read of /proc stays a small part of it.
    const arithmetic = await kernelShareOf(() => {
      for (let i = 0; i < 200_000; i++) x += Math.sqrt(x + i);
    });
    const fileReads = await kernelShareOf(() => readFileSync('/proc/self/stat'));
    // User time dominates arithmetic, though not by a fixed margin: the shares are counted in 10 ms
    // ticks of the whole process (its other threads, page faults), and a loaded CI host once put
    // 0.29 in the kernel's. Swapped fields would give it the larger share, and fail both checks.
    expect(arithmetic).toBeLessThan(0.5);
    expect(fileReads).toBeGreaterThan(arithmetic + 0.15);
  });

  it('reads a process that is gone as zero', () => {
    expect(processCpuSeconds(2 ** 22 + 12345)).toBe(0);
  });
});
