import type { RefusalReason } from './overloaded.error';
import type { ServiceTimeEstimate } from './service-time-model';

/**
 * Purchases served per lock hold. Under a spike a batch's time is mostly its round trips (lock,
 * statement, release), each waiting its turn on a busy event loop, not the statement's work per
 * purchase; so a hold serving more purchases sells more per second.
 */
export const MAX_BATCH = 256;

export const ADMISSION_LIMITS = {
  maxBatch: MAX_BATCH,
  // batches a unit must have measured before its estimate refuses anyone (a cold process is slow)
  minSamples: 3,
  unitCapFloor: 256,
  unitCapCeiling: 4096,
};
export type AdmissionLimits = typeof ADMISSION_LIMITS;

/** The batch of a unit now under its lock or waiting for it. */
export interface BatchInFlight {
  size: number;
  startedAt: number;
  /** the cut-off of its oldest purchase: it runs under this bound */
  endsBy: number;
}

/** What admission knows about one stock unit when a purchase arrives. */
export interface UnitLoad {
  /** purchases waiting ahead of the newcomer */
  waiting: number;
  inFlight?: BatchInFlight;
}

export type Refusal = { admit: false; reason: RefusalReason; retryAfterS: number };
export type Verdict = { admit: true } | Refusal;

const ADMIT: Verdict = { admit: true };

/**
 * How long the batch in flight still needs: the rest of its expected time while within it; once
 * overrunning (a stalled row lock, a starved process), as long again as it has run so far, at most
 * until the bound it runs under. The estimate grows with a stall instead of jumping to the bound
 * on the first hiccup.
 */
export function inFlightLeftMs(load: UnitLoad, model: ServiceTimeEstimate, now: number): number {
  if (!load.inFlight) return 0;
  const expected = model.batchMs(load.inFlight.size);
  const elapsed = now - load.inFlight.startedAt;
  if (elapsed < expected) return expected - elapsed;
  return Math.max(0, Math.min(elapsed, load.inFlight.endsBy - now));
}

/**
 * From now until a purchase at `position` among the waiting is served: the batch in flight, the
 * full batches ahead of it, then its own batch (oldest first, `maxBatch` per lock hold).
 */
export function completionMs(
  load: UnitLoad,
  position: number,
  model: ServiceTimeEstimate,
  maxBatch: number,
  now: number,
): number {
  const fullBatchesAhead = Math.floor(position / maxBatch);
  const ownBatch = (position % maxBatch) + 1;
  return inFlightLeftMs(load, model, now) + fullBatchesAhead * model.batchMs(maxBatch) + model.batchMs(ownBatch);
}

/** Retry-After for a refusal: the time the unit's present backlog takes to clear, whole seconds. */
export function retryAfterS(backlogMs: number): number {
  return Math.min(60, Math.max(1, Math.ceil(backlogMs / 1000)));
}

/** How many purchases may wait for one unit: what its measured rate serves in one deadline. */
export function unitCap(model: ServiceTimeEstimate, deadlineMs: number, limits: AdmissionLimits): number {
  const servable = Math.floor(deadlineMs / Math.max(model.batchMs(limits.maxBatch), 0.001)) * limits.maxBatch;
  return Math.min(limits.unitCapCeiling, Math.max(limits.unitCapFloor, servable));
}

/**
 * The admission rule: can this purchase be answered by its deadline? Admits one whose batch is
 * expected to end before its cut-off, `msToCutoff` from now, and refuses one that cannot, at once
 * and with nothing done. `deadlineMs` (PURCHASE_DEADLINE_MS) sizes the unit's cap.
 */
export function admissionVerdict(
  load: UnitLoad,
  msToCutoff: number,
  model: ServiceTimeEstimate,
  deadlineMs: number,
  limits: AdmissionLimits,
  now: number,
): Verdict {
  const done = completionMs(load, load.waiting, model, limits.maxBatch, now);
  if (load.waiting >= unitCap(model, deadlineMs, limits)) return refusal('queue_full', done);
  if (msToCutoff <= 0) return refusal('wait_estimate', done);
  // An idle unit always admits: its batch runs under the cut-off's bound and answers in time.
  if (load.waiting === 0 && !load.inFlight) return ADMIT;
  // Until measured, the caps and the expiry at the cut-off bound the wait; the estimate does not.
  if (model.samples < limits.minSamples) return ADMIT;
  return done > msToCutoff ? refusal('wait_estimate', done) : ADMIT;
}

/** A refusal for `reason`, its Retry-After from the unit's present backlog (`backlogMs`). */
export const refusal = (reason: RefusalReason, backlogMs: number): Refusal => ({
  admit: false,
  reason,
  retryAfterS: retryAfterS(backlogMs),
});
