import { FinalOrder, OpRecord, verdictOf } from '../format';
import { describe, Model } from '../model';
import { RuleResult, RuleTally } from '../tally';
import { surelyPaid } from './order-state-rules';

const iso = (t: number): string => new Date(t).toISOString();

/**
 * An answer cannot precede the effect it reports, give or take the clock allowance (`skewMs`
 * between the writer's clock and the database's): a 201 or a CREATED poll comes no earlier than
 * its order's createdAt, a payment answered PAID no earlier than the recorded paid_at, a cancel
 * answered 200 no earlier than the recorded closed_at, a ticket answered BOUGHT no earlier than an
 * order of its user. (A read is held to the writes it reflects by the three read rules.)
 */
export function answersAfterEffects(m: Model): RuleResult {
  const tally = new RuleTally('no answer precedes the effect it reports');
  const skew = m.options.skewMs;
  // When each user first had an order of each product: only ticket answers ask, so only a history with them builds it.
  let firstOrderOf: Map<string, number> | undefined;
  const firstOrderMs = (userId: string, productId: string): number => {
    if (!firstOrderOf) {
      firstOrderOf = new Map();
      for (const o of [...m.orders, ...m.preexisting])
        firstOrderOf.set(
          `${o.userId}|${o.productId}`,
          Math.min(firstOrderOf.get(`${o.userId}|${o.productId}`) ?? Infinity, o.createdAtMs),
        );
    }
    return firstOrderOf.get(`${userId}|${productId}`) ?? Infinity;
  };
  const late = (op: OpRecord, effectMs: number, effect: string): string | undefined =>
    op.completeMs + skew < effectMs
      ? `${describe(op)} answered at ${iso(op.completeMs)}, before ${effect} at ${iso(effectMs)} (allowance ${skew} ms)`
      : undefined;
  const { purchase, poll, pay, cancel, queueJoin, queuePoll } = m.byKind;
  for (const op of [...purchase, ...poll, ...pay, ...cancel, ...queueJoin, ...queuePoll]) {
    const order: FinalOrder | undefined =
      'orderId' in op && op.orderId !== undefined ? m.ordersById.get(op.orderId) : undefined;
    if (op.op === 'purchase' && verdictOf(op) === 'ok' && order)
      tally.judge(late(op, order.createdAtMs, `order ${order.id} was created`));
    else if (op.op === 'poll' && op.state === 'CREATED' && order)
      tally.judge(late(op, order.createdAtMs, `order ${order.id} was created`));
    else if (op.op === 'pay' && surelyPaid(op) && typeof order?.paidAtMs === 'number')
      tally.judge(late(op, order.paidAtMs, `order ${order.id} was recorded paid`));
    else if (op.op === 'cancel' && verdictOf(op) === 'ok' && typeof order?.closedAtMs === 'number')
      tally.judge(late(op, order.closedAtMs, `order ${order.id} was recorded closed`));
    else if ((op.op === 'queueJoin' || op.op === 'queuePoll') && op.state === 'BOUGHT' && verdictOf(op) === 'ok')
      tally.judge(
        late(op, firstOrderMs(op.userId, op.productId), `any order of ${op.userId} for product ${op.productId}`),
      );
  }
  return tally.result();
}
