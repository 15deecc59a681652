import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { BatchRefusedError } from './deadline-refusal';
import { OverloadedException } from './overloaded.error';
import { monotonicNow, ServeBatch } from './product-queue';
import { LIMITS, ProductQueues } from './product-queues';

const DEADLINE = 2000;
const QUEUE_MAX = 300;
const config = {
  get: () => ({ purchaseDeadlineMs: DEADLINE, purchaseQueueMax: QUEUE_MAX }),
} as unknown as TypedConfigService & ConfigService;

/** A server that records each batch it is handed and answers every purchase with its own item. */
function recordingServer(): { serve: ServeBatch<number, string>; batches: number[][]; release(): void } {
  const batches: number[][] = [];
  let open: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (open = resolve));
  return {
    batches,
    serve: async (items) => {
      batches.push(items);
      await gate;
      return { outcomes: items.map((item) => `served ${item}`), measured: true };
    },
    release: () => {
      open();
      gate = Promise.resolve();
    },
  };
}

/** The deadline the pipeline gives a purchase arriving at `arrivedAt`. */
const arriving = (arrivedAt: number) => ({ arrivedAt, deadlineAt: arrivedAt + DEADLINE });

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('ProductQueues', () => {
  const made: ProductQueues[] = [];
  const queuesUnderTest = (): ProductQueues => {
    const queues = new ProductQueues(config);
    made.push(queues);
    return queues;
  };
  afterEach(() => {
    made.splice(0).forEach((queues) => queues.onModuleDestroy());
    jest.useRealTimers();
  });

  it('serves the first purchase at once, then the ones that queued meanwhile as one batch, oldest first', async () => {
    const queues = queuesUnderTest();
    const server = recordingServer();
    const now = monotonicNow();
    const answers = [queues.submit('stock:1', 1, arriving(now), server.serve)];
    await settled();
    // The first batch holds the "lock"; these arrive meanwhile, one of them having arrived earlier.
    answers.push(
      queues.submit('stock:1', 3, arriving(now + 2), server.serve),
      queues.submit('stock:1', 2, arriving(now + 1), server.serve),
    );
    server.release();
    await expect(Promise.all(answers)).resolves.toEqual(['served 1', 'served 3', 'served 2']);
    expect(server.batches).toEqual([[1], [2, 3]]);
  });

  it('refuses with queue_full once all queues together hold PURCHASE_QUEUE_MAX, and says when to come back', async () => {
    const queues = queuesUnderTest();
    const server = recordingServer();
    const now = monotonicNow();
    const held = [0, 1, 2].map((unit) => queues.submit(`stock:${unit}`, unit, arriving(now), server.serve));
    await settled(); // one batch in flight per unit: those purchases left their queues
    for (let i = 0; i < QUEUE_MAX; i++) held.push(queues.submit(`stock:${i % 3}`, i, arriving(now), server.serve));
    await expect(queues.submit('stock:another', 0, arriving(now), server.serve)).rejects.toMatchObject({
      reason: 'queue_full',
      retryAfterS: expect.any(Number),
    });
    server.release();
    await Promise.all(held);
    // Served, they left the queues: there is room again.
    await expect(queues.submit('stock:another', 1, arriving(monotonicNow()), server.serve)).resolves.toBe('served 1');
  });

  it('prechecks without queueing: a fresh purchase passes, one whose deadline is spent is refused', () => {
    const queues = queuesUnderTest();
    expect(queues.precheck(['stock:7'], 1000 + DEADLINE, 1010)).toBeUndefined();
    expect(queues.precheck(['stock:7'], 1000 + DEADLINE, 1000 + DEADLINE - 10)).toMatchObject({
      reason: 'wait_estimate',
      retryAfterS: 1,
    });
    expect(queues.snapshot('stock:7')).toBeUndefined();
  });

  it('refuses a multi-unit purchase only when every unit would, with the soonest Retry-After', () => {
    const queues = queuesUnderTest();
    const now = monotonicNow();
    expect(queues.precheck(['stock:8:0', 'stock:8:1'], now, now)).toBeInstanceOf(OverloadedException);
    expect(queues.precheck(['stock:8:0', 'stock:8:1'], now + DEADLINE, now)).toBeUndefined();
  });

  it('answers OVERLOADED, with Retry-After, a queued purchase whose deadline passed before its batch', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const queues = queuesUnderTest();
    const server = recordingServer();
    const now = monotonicNow();
    const first = queues.submit('stock:1', 1, arriving(now), server.serve);
    await settled();
    const late = queues.submit('stock:1', 2, arriving(now), server.serve);
    const verdict = late.then(
      () => 'served',
      (error: unknown) => error,
    );
    jest.advanceTimersByTime(DEADLINE);
    await expect(verdict).resolves.toMatchObject({ reason: 'expired', retryAfterS: expect.any(Number) });
    expect(server.batches).toEqual([[1]]);
    server.release();
    await first;
  });

  it('holds a purchase to the deadline it was handed, computing none of its own', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const queues = queuesUnderTest();
    const server = recordingServer();
    const now = monotonicNow();
    const first = queues.submit('stock:13', 1, arriving(now), server.serve);
    await settled();
    // Arrived now, but with a deadline a quarter of PURCHASE_DEADLINE_MS away: that one is kept.
    const late = queues.submit('stock:13', 2, { arrivedAt: now, deadlineAt: now + DEADLINE / 4 }, server.serve);
    const verdict = late.then(
      () => 'served',
      (error: unknown) => error,
    );
    jest.advanceTimersByTime(DEADLINE / 4);
    await expect(verdict).resolves.toMatchObject({ reason: 'expired' });
    server.release();
    await first;
  });

  it('answers every purchase of a batch refused by its server OVERLOADED, with the reason', async () => {
    const queues = queuesUnderTest();
    const refuse: ServeBatch<number, string> = () => Promise.reject(new BatchRefusedError('lock_wait'));
    await expect(queues.submit('stock:10', 1, arriving(monotonicNow()), refuse)).rejects.toMatchObject({
      code: 'OVERLOADED',
      reason: 'lock_wait',
    });
  });

  it('gives a batch whose server throws that error, and goes on serving the queue', async () => {
    const queues = queuesUnderTest();
    let calls = 0;
    const serve: ServeBatch<number, string> = (items) => {
      if (++calls === 1) throw new Error('the server broke'); // synchronously, before any await
      return Promise.resolve({ outcomes: items.map((item) => `served ${item}`), measured: true });
    };
    await expect(queues.submit('stock:9', 1, arriving(monotonicNow()), serve)).rejects.toThrow('the server broke');
    await expect(queues.submit('stock:9', 2, arriving(monotonicNow()), serve)).resolves.toBe('served 2');
  });

  it('learns the unit service time from measured batches only', async () => {
    const queues = queuesUnderTest();
    const faulty: ServeBatch<number, string> = async (items) => ({ outcomes: items.map(String), measured: false });
    await queues.submit('stock:11', 1, arriving(monotonicNow()), faulty);
    expect(queues.snapshot('stock:11')?.measuredBatches).toBe(0);
    const server = recordingServer();
    server.release();
    await queues.submit('stock:12', 1, arriving(monotonicNow()), server.serve);
    expect(queues.snapshot('stock:12')).toMatchObject({ queued: 0, inFlight: undefined, measuredBatches: 1 });
  });

  it('keeps back the fixed answer margin from deadlines while the event loop is on time', () => {
    expect(queuesUnderTest().answerMarginMs()).toBe(LIMITS.answerMarginMs);
  });
});
