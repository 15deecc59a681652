import { ServiceTimeModel } from './service-time-model';

describe('ServiceTimeModel', () => {
  it('uses the prior until a batch has been measured', () => {
    const model = new ServiceTimeModel(0.1, { overheadMs: 5, perItemMs: 1 });
    expect(model.batchMs(10)).toBe(15);
  });

  it('splits batch time into a per-batch overhead and a per-purchase cost once sizes vary', () => {
    const model = new ServiceTimeModel();
    for (let i = 0; i < 50; i++) for (const size of [1, 8, 24, 48]) model.observe(size, 4 + 0.25 * size);
    const line = model.line();
    expect(line.overheadMs).toBeCloseTo(4, 5);
    expect(line.perItemMs).toBeCloseTo(0.25, 5);
    expect(model.batchMs(48)).toBeCloseTo(16, 5);
  });

  it("keeps the prior's per-purchase cost while every batch had the same size, the rest being overhead", () => {
    const model = new ServiceTimeModel(0.1, { overheadMs: 5, perItemMs: 1 });
    for (let i = 0; i < 10; i++) model.observe(1, 6);
    expect(model.line()).toEqual({ overheadMs: 5, perItemMs: 1 });
    const fast = new ServiceTimeModel(0.1, { overheadMs: 5, perItemMs: 1 });
    for (let i = 0; i < 10; i++) fast.observe(4, 2);
    expect(fast.line()).toEqual({ overheadMs: 0, perItemMs: 0.5 });
  });

  it('follows the machine when batches get slower', () => {
    const model = new ServiceTimeModel(0.2);
    for (let i = 0; i < 20; i++) for (const size of [1, 48]) model.observe(size, 2 + 0.1 * size);
    const before = model.batchMs(48);
    for (let i = 0; i < 20; i++) for (const size of [1, 48]) model.observe(size, 20 + 1 * size);
    expect(model.batchMs(48)).toBeGreaterThan(before * 5);
  });

  it('ignores impossible measurements', () => {
    const model = new ServiceTimeModel(0.1, { overheadMs: 5, perItemMs: 1 });
    model.observe(0, 10);
    model.observe(4, Number.NaN);
    model.observe(4, -1);
    expect(model.batchMs(1)).toBe(6);
  });
});
