import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../config/app-config.module';
import { OverloadedException } from './overloaded.error';
import { PurchaseBatches } from './purchase-batches.service';
import { deadlineNow, PurchaseDeadlines } from './purchase-deadline';
import { BatchServer } from './unit-batcher';

const DEADLINE = 2000;
const QUEUE_MAX = 300;
const config = {
  get: () => ({ purchaseQueueMax: QUEUE_MAX }),
} as unknown as TypedConfigService & ConfigService;

type Server = BatchServer<string, number, string>;

/** A server that records each batch it is handed and, once released, answers every purchase with its own item. */
function gatedServer(): Server & { batches: number[][]; release(): void } {
  const batches: number[][] = [];
  let open: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (open = resolve));
  return {
    batches,
    async serveBatch(_unit, items) {
      batches.push(items);
      await gate;
      return { outcomes: items.map((item) => `served ${item}`), measured: true };
    },
    release() {
      open();
      gate = Promise.resolve();
    },
  };
}

/** The deadline the pipeline gives a purchase arriving at `arrivedAt`. */
const arriving = (arrivedAt: number) => ({ arrivedAt, deadlineAt: arrivedAt + DEADLINE });

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('PurchaseBatches', () => {
  const clocks: PurchaseDeadlines[] = [];
  const batchesUnderTest = (): PurchaseBatches => {
    const deadlines = new PurchaseDeadlines(DEADLINE);
    clocks.push(deadlines);
    return new PurchaseBatches(deadlines, config);
  };
  afterEach(() => {
    clocks.splice(0).forEach((deadlines) => deadlines.onModuleDestroy());
    jest.useRealTimers();
  });

  it('batches the purchases of one unit together and keeps units apart', async () => {
    const batches = batchesUnderTest();
    const server = gatedServer();
    const now = deadlineNow();
    const answers = [batches.submit('stock:1', 'stock:1', 1, arriving(now), server)];
    await settled();
    answers.push(
      batches.submit('stock:1', 'stock:1', 2, arriving(now), server),
      batches.submit('stock:1', 'stock:1', 3, arriving(now), server),
      batches.submit('stock:2', 'stock:2', 4, arriving(now), server),
    );
    server.release();
    await expect(Promise.all(answers)).resolves.toEqual(['served 1', 'served 2', 'served 3', 'served 4']);
    expect(server.batches).toEqual([[1], [4], [2, 3]]);
  });

  it('refuses with queue_full once all units together hold PURCHASE_QUEUE_MAX, and says when to come back', async () => {
    const batches = batchesUnderTest();
    const server = gatedServer();
    const now = deadlineNow();
    const held = [0, 1, 2].map((unit) => batches.submit(`stock:${unit}`, `${unit}`, unit, arriving(now), server));
    await settled(); // one batch in flight per unit: those purchases wait no more
    for (let i = 0; i < QUEUE_MAX; i++)
      held.push(batches.submit(`stock:${i % 3}`, `${i % 3}`, i, arriving(now), server));
    await expect(batches.submit('stock:another', 'x', 0, arriving(now), server)).rejects.toMatchObject({
      reason: 'queue_full',
      retryAfterS: expect.any(Number),
    });
    server.release();
    await Promise.all(held);
    // Served, they left their batchers: there is room again.
    await expect(batches.submit('stock:another', 'x', 1, arriving(deadlineNow()), server)).resolves.toBe('served 1');
  });

  it('prechecks without making a batcher: a fresh purchase passes, one past its cut-off is refused', () => {
    const batches = batchesUnderTest();
    expect(batches.precheck(['stock:7'], 1000 + DEADLINE, 1010)).toBeUndefined();
    expect(batches.precheck(['stock:7'], 1000 + DEADLINE, 1000 + DEADLINE - 10)).toMatchObject({
      reason: 'wait_estimate',
      retryAfterS: 1,
    });
    expect(batches.serviceTime('stock:7')).toBeUndefined();
  });

  it('refuses a multi-unit purchase only when every unit would, with the soonest Retry-After', () => {
    const batches = batchesUnderTest();
    const now = deadlineNow();
    expect(batches.precheck(['stock:8:0', 'stock:8:1'], now, now)).toBeInstanceOf(OverloadedException);
    expect(batches.precheck(['stock:8:0', 'stock:8:1'], now + DEADLINE, now)).toBeUndefined();
  });

  it('holds a purchase to the deadline it was handed, computing none of its own', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const batches = batchesUnderTest();
    const server = gatedServer();
    const now = deadlineNow();
    const first = batches.submit('stock:13', 'stock:13', 1, arriving(now), server);
    await settled();
    // Arrived now, but with a deadline a quarter of PURCHASE_DEADLINE_MS away: that one is kept.
    const late = batches.submit('stock:13', 'stock:13', 2, { arrivedAt: now, deadlineAt: now + DEADLINE / 4 }, server);
    const verdict = late.then(
      () => 'served',
      (error: unknown) => error,
    );
    jest.advanceTimersByTime(DEADLINE / 4);
    await expect(verdict).resolves.toMatchObject({ reason: 'expired' });
    server.release();
    await first;
  });

  it('shows the measured model of a unit to readers such as the waiting room', async () => {
    const batches = batchesUnderTest();
    const faulty: Server = { serveBatch: async (_unit, items) => ({ outcomes: items.map(String), measured: false }) };
    await batches.submit('stock:11', 'stock:11', 1, arriving(deadlineNow()), faulty);
    expect(batches.serviceTime('stock:11')?.samples).toBe(0);
    const server = gatedServer();
    server.release();
    await batches.submit('stock:12', 'stock:12', 1, arriving(deadlineNow()), server);
    expect(batches.serviceTime('stock:12')?.samples).toBe(1);
  });
});
