import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hasCommand } from '../../scripts/infra/system-packages';
import { processCpuSeconds, CpuMeter } from './proc-cpu';
import { parseWrkOutput, runWrk } from './wrk';

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

// wrk itself runs here (the bench installs it; where it is missing this is skipped).
(hasCommand('wrk') ? describe : describe.skip)('runWrk, each entry once (wrk installed)', () => {
  it('sends every token once with its own body, none twice, and ends when the last answer is in', async () => {
    const seen = new Map<string, number>();
    const mismatched: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const user = (req.headers.authorization ?? '').replace('Bearer user', '');
        if (body !== `{"user":${user}}`) mismatched.push(`${user}: ${body}`);
        seen.set(user, (seen.get(user) ?? 0) + 1);
        // Answers out of order, so connections finish their entries at different times.
        setTimeout(() => res.end('{}'), Math.random() * 3);
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/join`;
      // An odd count: the two threads' strides differ by one entry.
      const count = 1_001;
      const result = await runWrk({
        url,
        method: 'POST',
        connections: 16,
        seconds: 30,
        once: true,
        tokens: Array.from({ length: count }, (_, i) => `user${i}`),
        bodies: Array.from({ length: count }, (_, i) => `{"user":${i}}`),
      });
      expect(result.requests).toBe(count);
      expect(result.byStatus).toEqual({ '200': count });
      expect(seen.size).toBe(count);
      expect([...seen.values()].every((times) => times === 1)).toBe(true);
      expect(mismatched).toEqual([]);
      expect(result.seconds).toBeLessThan(10);
    } finally {
      server.close();
    }
  }, 40_000);
});
