import { CancelRecord, FinalOrder, OpRecord, PayRecord, verdictOf } from '../format';
import { describe, latestEffectMs, Model } from '../model';
import { RuleResult, RuleTally } from '../tally';

/** A pay that surely made the order PAID: 200 with the order PAID (direct) or the webhook's result PAID. */
const surelyPaid = (p: PayRecord): boolean => verdictOf(p) === 'ok' && (p.result === undefined ? p.orderStatus === undefined || p.orderStatus === 'PAID' : p.result === 'PAID');
/** A pay that may have made it PAID: sure, unknown, or a webhook replay (its first delivery decided). */
const mayHavePaid = (p: PayRecord): boolean => surelyPaid(p) || verdictOf(p) === 'unknown' || p.result === 'ALREADY_PROCESSED';
const mayHaveCancelled = (c: CancelRecord): boolean => verdictOf(c) !== 'refused';

/**
 * Order states move only along PENDING_PAYMENT → PAID | CANCELLED | EXPIRED and PAID → CANCELLED
 * (by an admin). Judged per order from its pays and cancels and its final state: a paid order is
 * PAID or admin-cancelled at the end, never EXPIRED; a cancelled one is CANCELLED; an order is
 * PAID or CANCELLED only if some request may have made it so (when the history records pays /
 * cancels at all); none expired before its expiresAt.
 */
export function legalOrderStates(m: Model): RuleResult {
  const tally = new RuleTally('order states only along legal edges');
  const recordsPays = m.ops.some((op) => op.op === 'pay');
  const recordsCancels = m.ops.some((op) => op.op === 'cancel');
  for (const order of m.orders) {
    const ops = m.byOrder.get(order.id) ?? [];
    tally.judge(judgeOrder(order, ops, recordsPays, recordsCancels, m.options.skewMs, m.options.finalReadAtMs));
  }
  return tally.result();
}

function judgeOrder(order: FinalOrder, ops: OpRecord[], recordsPays: boolean, recordsCancels: boolean, skew: number, readAt: number): string | undefined {
  const pays = ops.filter((op): op is PayRecord => op.op === 'pay');
  const cancels = ops.filter((op): op is CancelRecord => op.op === 'cancel');
  const paid = pays.filter(surelyPaid);
  const where = `order ${order.id} (${order.status})`;
  if (paid.length) {
    const firstPaid = paid.reduce((a, b) => (a.completeMs <= b.completeMs ? a : b));
    if (order.status === 'EXPIRED') return `${where}: PAID → EXPIRED, after ${describe(firstPaid)}`;
    if (order.status === 'PENDING_PAYMENT') return `${where}: still unpaid after ${describe(firstPaid)}`;
    if (order.status === 'CANCELLED' && !cancels.some((c) => c.actor === 'admin' && mayHaveCancelled(c) && latestEffectMs(c) >= firstPaid.invokeMs))
      return `${where}: cancelled after ${describe(firstPaid)} by no admin`;
    const buyerCancel = cancels.find((c) => c.actor === 'user' && verdictOf(c) === 'ok' && c.invokeMs > firstPaid.completeMs);
    if (buyerCancel) return `${where}: the buyer cancelled a PAID order: ${describe(buyerCancel)}`;
  }
  const cancelled = cancels.find((c) => verdictOf(c) === 'ok');
  if (cancelled && order.status !== 'CANCELLED') return `${where}: ${describe(cancelled)} but the order is ${order.status}`;
  if (order.status === 'PAID' && recordsPays && !pays.some(mayHavePaid)) return `${where}: PAID with no pay that could have paid it`;
  if (order.status === 'CANCELLED' && recordsCancels && !cancels.some(mayHaveCancelled)) return `${where}: CANCELLED with no cancel that could have cancelled it`;
  if (order.status === 'EXPIRED' && order.expiresAtMs > readAt + skew) return `${where}: expired before its expiresAt ${new Date(order.expiresAtMs).toISOString()}`;
  return undefined;
}
