import { AdmissionLimits, monotonicNow, ProductQueue, QueueHooks } from './product-queue';

/*
 * A batch whose statement answer was lost (served, but `measured: false`) measured a fault, not
 * the service, unless it ran longer than the model expected: under a spike on Node 24 the slowest
 * full batches ran into their deadline and lost their answers, and a model fitted from the faster
 * survivors alone underrated the queue, so purchases it admitted expired in it.
 */

const LIMITS: AdmissionLimits = {
  maxBatch: 10,
  minSamples: 3,
  answerMarginMs: 50,
  unitCapFloor: 10,
  unitCapCeiling: 1000,
};
const hooks: QueueHooks = {
  left: () => undefined,
  refused: () => undefined,
  waited: () => undefined,
  answerMarginMs: () => LIMITS.answerMarginMs,
};

/** A queue whose next batch takes `next.ms` and reports `next.measured`. */
function queueUnderTest(next: { ms: number; measured: boolean }): ProductQueue<number, number> {
  return new ProductQueue<number, number>(
    async (items) => {
      await new Promise((resolve) => setTimeout(resolve, next.ms));
      return { outcomes: items, measured: next.measured };
    },
    hooks,
    () => LIMITS,
    2000,
  );
}

async function serveOne(queue: ProductQueue<number, number>, ms: number): Promise<void> {
  const arrivedAt = monotonicNow();
  const done = queue.offer(1, { arrivedAt, deadlineAt: arrivedAt + 2000 });
  await jest.advanceTimersByTimeAsync(ms);
  await done;
}

describe('ProductQueue: batches that lost their answer', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('learns from one that overran the estimate: the service was at least that slow', async () => {
    const next = { ms: 10, measured: true };
    const queue = queueUnderTest(next);
    for (let i = 0; i < 20; i++) await serveOne(queue, next.ms);
    const before = queue.snapshot().batchMs(1);
    expect(before).toBeLessThan(20);
    Object.assign(next, { ms: 800, measured: false });
    await serveOne(queue, next.ms);
    expect(queue.snapshot().batchMs(1)).toBeGreaterThan(before + 50);
    expect(queue.snapshot().measuredBatches).toBe(21);
    queue.close();
  });

  it('keeps its view after one that ran within the estimate (a fault, not the service)', async () => {
    const next = { ms: 10, measured: true };
    const queue = queueUnderTest(next);
    for (let i = 0; i < 20; i++) await serveOne(queue, next.ms);
    const before = queue.snapshot().batchMs(1);
    Object.assign(next, { ms: 2, measured: false });
    await serveOne(queue, next.ms);
    expect(queue.snapshot().batchMs(1)).toBe(before);
    expect(queue.snapshot().measuredBatches).toBe(20);
    queue.close();
  });

  it('probes a lone purchase once the model has learnt nothing for a deadline, and learns again', async () => {
    const next = { ms: 1990, measured: false };
    const queue = queueUnderTest(next);
    await serveOne(queue, next.ms); // answer lost at the deadline's edge: the model now expects ~2 s
    expect(queue.snapshot().batchMs(1)).toBeGreaterThan(2000 - LIMITS.answerMarginMs);
    Object.assign(next, { ms: 10, measured: true });
    // Right after it, the estimate refuses: a slow dependency is not probed on every purchase.
    await expect(serveOne(queue, next.ms)).rejects.toMatchObject({ code: 'OVERLOADED' });
    expect(queue.snapshot().measuredBatches).toBe(1);
    // A deadline later the lone purchase runs, and the model follows the service again.
    await jest.advanceTimersByTimeAsync(2000);
    await expect(serveOne(queue, next.ms)).resolves.toBeUndefined();
    expect(queue.snapshot().measuredBatches).toBe(2);
    expect(queue.snapshot().batchMs(1)).toBeLessThan(2000 - LIMITS.answerMarginMs);
    queue.close();
  });
});
