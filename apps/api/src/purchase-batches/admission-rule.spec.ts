import {
  AdmissionLimits,
  admissionVerdict,
  completionMs,
  inFlightLeftMs,
  retryAfterS,
  unitCap,
  UnitLoad,
} from './admission-rule';
import { ServiceTimeModel } from './service-time-model';

const LIMITS: AdmissionLimits = {
  maxBatch: 10,
  minSamples: 3,
  unitCapFloor: 10,
  unitCapCeiling: 1000,
};
const DEADLINE = 2000;
// A unit measured at 10 ms per batch plus 1 ms per purchase: a full batch of 10 takes 20 ms.
const measured = (): ServiceTimeModel => {
  const model = new ServiceTimeModel();
  for (let i = 0; i < 30; i++) for (const size of [1, 5, 10]) model.observe(size, 10 + size);
  return model;
};
const idle: UnitLoad = { waiting: 0 };

describe('the admission rule', () => {
  const now = 100_000;

  it('admits a purchase to an idle unit', () => {
    expect(admissionVerdict(idle, DEADLINE, measured(), DEADLINE, LIMITS, now)).toEqual({ admit: true });
  });

  it('estimates the answer from the batch in flight, the full batches ahead and its own batch', () => {
    const load: UnitLoad = { waiting: 25, inFlight: { size: 10, startedAt: now - 5, endsBy: now + 1500 } };
    // in flight: 20 - 5 = 15 left; 2 full batches of 10 ahead: 40; its own batch of 6: 16
    expect(completionMs(load, 25, measured(), LIMITS.maxBatch, now)).toBeCloseTo(15 + 40 + 16, 3);
  });

  it('expects a batch that overran its measured time to run as long again, at most to its bound', () => {
    const running = (elapsed: number): UnitLoad => ({
      waiting: 0,
      inFlight: { size: 10, startedAt: now - elapsed, endsBy: now - elapsed + 1000 },
    });
    expect(inFlightLeftMs(running(5), measured(), now)).toBeCloseTo(15, 5);
    expect(inFlightLeftMs(running(300), measured(), now)).toBe(300);
    expect(inFlightLeftMs(running(800), measured(), now)).toBe(200);
    expect(inFlightLeftMs(running(1200), measured(), now)).toBe(0);
  });

  it('refuses at once, with a Retry-After from the backlog, a purchase whose estimated answer is past its cut-off', () => {
    // 150 waiting: 15 full batches = 300 ms, plus in flight; only 250 ms left to its cut-off
    const load: UnitLoad = { waiting: 150, inFlight: { size: 10, startedAt: now, endsBy: now + 1900 } };
    expect(admissionVerdict(load, 250, measured(), DEADLINE, LIMITS, now)).toEqual({
      admit: false,
      reason: 'wait_estimate',
      retryAfterS: 1,
    });
    expect(admissionVerdict(load, 1900, measured(), DEADLINE, LIMITS, now)).toEqual({ admit: true });
  });

  it('does not refuse by estimate before the unit has measured a few batches (a cold process is slow)', () => {
    const load: UnitLoad = { waiting: 15, inFlight: { size: 10, startedAt: now, endsBy: now + 1900 } };
    const cold = new ServiceTimeModel();
    cold.observe(1, 400);
    cold.observe(48, 900);
    expect(admissionVerdict(load, 250, cold, DEADLINE, LIMITS, now)).toEqual({ admit: true });
    cold.observe(20, 600);
    expect(admissionVerdict(load, 250, cold, DEADLINE, LIMITS, now)).toMatchObject({
      admit: false,
      reason: 'wait_estimate',
    });
  });

  it('derives the unit cap from what the measured rate serves within one deadline, inside floor and ceiling', () => {
    expect(unitCap(measured(), DEADLINE, LIMITS)).toBe(1000); // 2000 / 20 ms × 10 = 1000
    expect(unitCap(measured(), 500, LIMITS)).toBe(250);
    const slow = new ServiceTimeModel(0.1, { overheadMs: 5000, perItemMs: 0 });
    expect(unitCap(slow, DEADLINE, LIMITS)).toBe(LIMITS.unitCapFloor);
  });

  it('refuses with queue_full at the cap, whatever the estimate says', () => {
    const load: UnitLoad = { waiting: 250 };
    expect(admissionVerdict(load, 100_000, measured(), 500, LIMITS, now)).toMatchObject({
      admit: false,
      reason: 'queue_full',
    });
  });

  it('refuses newcomers behind a batch stalled longer than their deadline allows; an idle unit still admits (the probe)', () => {
    const stalled: UnitLoad = { waiting: 3, inFlight: { size: 1, startedAt: now - 1000, endsBy: now + 900 } };
    expect(admissionVerdict(stalled, 800, measured(), DEADLINE, LIMITS, now)).toMatchObject({
      admit: false,
      reason: 'wait_estimate',
    });
    expect(admissionVerdict(idle, 800, measured(), DEADLINE, LIMITS, now)).toEqual({ admit: true });
  });

  it('refuses a purchase whose cut-off has come before it reached its batcher', () => {
    expect(admissionVerdict(idle, 0, measured(), DEADLINE, LIMITS, now)).toMatchObject({
      admit: false,
      reason: 'wait_estimate',
    });
  });

  it('gives Retry-After in whole seconds from the backlog, at least 1 and at most 60', () => {
    expect(retryAfterS(0)).toBe(1);
    expect(retryAfterS(1001)).toBe(2);
    expect(retryAfterS(3_600_000)).toBe(60);
  });
});
