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

  // The kernel keeps one account of a process's user and system time and shows it twice: in
  // /proc/<pid>/stat, which the meter reads, and through getrusage(), which Node's cpuUsage() reads.
  // The two must tell the same split. A loop of arithmetic is mostly user time, so fields read the
  // wrong way round would turn its small kernel share into a large one.
  it('splits the CPU into user and kernel time as getrusage() does', async () => {
    const meter = new CpuMeter(() => [process.pid]);
    await meter.start();
    const rusageBefore = process.cpuUsage();
    const before = processCpuSeconds(process.pid);
    let x = 0;
    while (processCpuSeconds(process.pid) - before < 0.3) {
      for (let i = 0; i < 200_000; i++) x += Math.sqrt(x + i);
    }
    const rusage = process.cpuUsage(rusageBefore);
    await meter.stop();
    const rusageShare = rusage.system / (rusage.user + rusage.system);
    // Both are rounded to 10 ms ticks of ~0.3 s; a loaded host has put up to 0.29 in the kernel's
    // share of such a loop, so the test asks only that the split is lopsided and read alike.
    expect(rusageShare).toBeLessThan(0.4);
    expect(Math.abs(meter.systemShare() - rusageShare)).toBeLessThan(0.1);
  });

  it('reads a process that is gone as zero', () => {
    expect(processCpuSeconds(2 ** 22 + 12345)).toBe(0);
  });
});
