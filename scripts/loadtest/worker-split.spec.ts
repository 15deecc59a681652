import { Worker } from 'node:worker_threads';
import type { OpRecord } from '../history/format';
import { Recorder } from './recorder';
import { AttemptCounter, mergeThreadHistories, splitConnections, workerCount } from './worker-split';

const op = (completeMs: number, key: string): OpRecord =>
  ({
    op: 'purchase',
    invokeMs: completeMs - 1,
    completeMs,
    productId: '1',
    userId: 'u',
    quantity: 1,
    key,
    status: 201,
  }) as OpRecord;

describe('spreading the load over worker threads', () => {
  it('shares the connections out as evenly as whole ones allow, never running a thread without one', () => {
    expect(splitConnections(128, 2)).toEqual([64, 64]);
    expect(splitConnections(7, 3)).toEqual([3, 2, 2]);
    expect(workerCount(8, 3)).toBe(3);
    expect(workerCount(2, 128)).toBe(2);
    expect(workerCount(0, 5)).toBe(1);
  });

  it('hands every attempt number out once across threads, and no more than the limit', async () => {
    const counter = new AttemptCounter(5000);
    // Two threads claim from the same buffer at once, as the generator's workers do.
    const claimer = `
      const { workerData, parentPort } = require('node:worker_threads');
      const next = new Int32Array(workerData);
      const mine = [];
      for (;;) { if (Atomics.load(next, 0) >= 5000) break; const n = Atomics.add(next, 0, 1); if (n >= 5000) break; mine.push(n); }
      parentPort.postMessage(mine);`;
    const other = new Worker(claimer, { eval: true, workerData: counter.shared });
    const theirs = new Promise<number[]>((resolve) => other.once('message', resolve));
    const mine: number[] = [];
    for (let n = counter.claim(); n >= 0; n = counter.claim()) mine.push(n);
    const all = [...mine, ...(await theirs)].sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    expect(counter.claim()).toBe(-1);
  });

  it("merges the threads' histories by completion time, keeping each thread's order on ties", () => {
    const merged = mergeThreadHistories([
      [op(10, 'a1'), op(30, 'a2'), op(30, 'a3')],
      [op(5, 'b1'), op(30, 'b2'), op(40, 'b3')],
    ]);
    expect(merged.map((o) => (o as { key: string }).key)).toEqual(['b1', 'a1', 'a2', 'a3', 'b2', 'b3']);
  });

  it("adds a thread's figures to the run's: counts, seconds, orders, and the sale's pace at the first SOLD_OUT", () => {
    const startedAt = Date.now();
    const run = new Recorder(startedAt);
    const threads = [new Recorder(startedAt), new Recorder(startedAt)];
    threads[0].record({ status: 201, latencyMs: 4, finishedAt: startedAt + 100 });
    threads[0].recordCreated('o1', 'u1');
    threads[1].record({ status: 201, latencyMs: 6, finishedAt: startedAt + 1500 });
    threads[1].recordCreated('o2', 'u2');
    threads[1].record({ status: 409, code: 'SOLD_OUT', latencyMs: 2, finishedAt: startedAt + 1600 });
    threads[0].record({ status: 409, code: 'SOLD_OUT', latencyMs: 3, finishedAt: startedAt + 1700 });
    threads[0].attempts = 2;
    threads[1].attempts = 2;
    for (const thread of threads) run.absorb(thread.snapshot());
    expect(run.requests).toBe(4);
    expect(run.attempts).toBe(4);
    expect(run.byCode).toEqual({ '201': 2, '409 SOLD_OUT': 2 });
    expect([...run.createdOrderIds].sort()).toEqual(['o1', 'o2']);
    expect(run.createdByUser).toEqual(
      new Map([
        ['u1', 1],
        ['u2', 1],
      ]),
    );
    expect(run.timeline().map((s) => s.byStatus)).toEqual([{ '201': 1 }, { '201': 1, '409': 2 }]);
    expect(run.firstSoldOutAt).toBe(startedAt + 1600);
    expect(run.createdBySoldOut).toBe(2);
    expect(run.latencies.sort()).toEqual([2, 3, 4, 6]);
  });
});
