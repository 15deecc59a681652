import { ClockOffset, OpRecord } from './format';

/**
 * Moves a history's operations onto the reference clock, in place: each time gains the writer's
 * measured offset, and each operation's interval is widened by the offset's uncertainty on both
 * sides, so that it still holds the true interval whatever the offset was within its bound.
 *
 * Every rule asks "surely before?" as `a.completeMs < b.invokeMs` (or against a database time with
 * the skew allowance), so a wider interval only ever makes a rule more permissive: operations of
 * two writers whose clocks are known to ±u each are never put in an order they may not have had.
 */
export function toReferenceClock(ops: OpRecord[], clock: Pick<ClockOffset, 'offsetMs' | 'uncertaintyMs'>): void {
  const { offsetMs, uncertaintyMs } = clock;
  if (!Number.isFinite(offsetMs) || !(uncertaintyMs >= 0) || !Number.isFinite(uncertaintyMs))
    throw new Error(`clock offset ${offsetMs} ± ${uncertaintyMs} ms is not a finite offset with a bound >= 0`);
  const earlier = offsetMs - uncertaintyMs;
  const later = offsetMs + uncertaintyMs;
  for (const op of ops) {
    op.invokeMs += earlier;
    op.completeMs += later;
  }
}
