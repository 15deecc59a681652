import { ConfigService } from '@nestjs/config';
import { TypedConfigService } from '../../config/app-config.module';
import { BatchRefusedError } from './deadline-refusal';
import { OverloadedException } from './overloaded.error';
import { LIMITS, monotonicNow, PurchaseAdmission } from './purchase-admission';
import { Waiting } from './unit-line';

const DEADLINE = 2000;
const QUEUE_MAX = 300;
const config = { get: () => ({ purchaseDeadlineMs: DEADLINE, purchaseQueueMax: QUEUE_MAX }) } as unknown as TypedConfigService & ConfigService;
const waiting = (arrivedAt: number): Waiting => ({ arrivedAt, deadline: arrivedAt + DEADLINE, reject: jest.fn() });

describe('PurchaseAdmission', () => {
  const made: PurchaseAdmission[] = [];
  const admissionUnderTest = (): PurchaseAdmission => {
    const admission = new PurchaseAdmission(config);
    made.push(admission);
    return admission;
  };
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    made.splice(0).forEach((admission) => admission.onModuleDestroy());
    jest.useRealTimers();
  });

  it('queues purchases per unit and hands them out oldest first', () => {
    const admission = admissionUnderTest();
    const line = admission.admit('stock:1', waiting(1000), 1000);
    admission.admit('stock:1', waiting(1001), 1001);
    expect(admission.take(line, 1010).map((w) => w.arrivedAt)).toEqual([1000, 1001]);
  });

  it('refuses with queue_full once all queues together hold PURCHASE_QUEUE_MAX', () => {
    const admission = admissionUnderTest();
    for (let i = 0; i < QUEUE_MAX; i++) admission.admit(`stock:${i % 3}`, waiting(1000), 1000);
    let refusal: unknown;
    try {
      admission.admit('stock:another', waiting(1000), 1000);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(OverloadedException);
    expect(refusal).toMatchObject({ reason: 'queue_full', retryAfterS: expect.any(Number) });
  });

  it('prechecks without queueing: a fresh purchase passes, one whose deadline is spent is refused', () => {
    const admission = admissionUnderTest();
    expect(admission.precheck('stock:7', 1000, 1010)).toBeUndefined();
    expect(admission.precheck('stock:7', 1000, 1000 + DEADLINE - 10)).toMatchObject({ reason: 'wait_estimate', retryAfterS: 1 });
    // The precheck made no line: the unit is still idle and admits.
    const line = admission.admit('stock:7', waiting(5000), 5000);
    expect(line.length).toBe(1);
  });

  it('answers OVERLOADED, with Retry-After, the queued purchases whose deadline passed', () => {
    const admission = admissionUnderTest();
    const arrivedAt = monotonicNow();
    const stale = waiting(arrivedAt);
    admission.admit('stock:1', stale, arrivedAt);
    jest.advanceTimersByTime(DEADLINE - LIMITS.answerMarginMs - 1);
    expect(stale.reject).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(stale.reject).toHaveBeenCalledWith(expect.objectContaining({ reason: 'expired', retryAfterS: expect.any(Number) }));
  });

  describe('draining', () => {
    beforeEach(() => jest.useRealTimers());
    const settled = () => new Promise((resolve) => setImmediate(resolve));

    it('rejects a batch whose server throws and goes on draining the line', async () => {
      const admission = admissionUnderTest();
      const served: number[] = [];
      let calls = 0;
      const serve = (batch: Waiting[]) => {
        if (++calls === 1) throw new Error('the server broke'); // synchronously, before any await
        served.push(...batch.map((w) => w.arrivedAt));
        return Promise.resolve({ measured: true });
      };
      const first = waiting(monotonicNow());
      admission.submit('stock:9', first, serve);
      await settled();
      expect(first.reject).toHaveBeenCalledWith(expect.objectContaining({ message: 'the server broke' }));
      const second = waiting(monotonicNow());
      admission.submit('stock:9', second, serve);
      await settled();
      expect(served).toEqual([second.arrivedAt]);
      expect(second.reject).not.toHaveBeenCalled();
    });

    it('answers a batch refused by its server OVERLOADED, with the reason', async () => {
      const admission = admissionUnderTest();
      const item = waiting(monotonicNow());
      admission.submit('stock:10', item, () => Promise.reject(new BatchRefusedError('lock_wait')));
      await settled();
      expect(item.reject).toHaveBeenCalledWith(expect.any(OverloadedException));
      expect(item.reject).toHaveBeenCalledWith(expect.objectContaining({ reason: 'lock_wait' }));
    });
  });
});
