import { FinalOrder, PurchaseRecord, verdictOf } from '../format';
import { describe, groupKey, latestEffectMs, Model } from '../model';
import { RuleResult, RuleTally } from '../tally';

/** Every 201 (and every poll answered CREATED) names an order that is in the final state, of that user and purchase. */
export function every201Durable(m: Model): RuleResult {
  const tally = new RuleTally('every 201 is in the final state');
  for (const op of m.ops) {
    const created = (op.op === 'purchase' && verdictOf(op) === 'ok') || (op.op === 'poll' && op.state === 'CREATED');
    if (!created) continue;
    const order = op.orderId !== undefined ? m.ordersById.get(op.orderId) : undefined;
    const purchaseId = op.op === 'purchase' ? (op.key ?? op.purchaseId) : op.purchaseId;
    if (!order) tally.judge(`lost: ${describe(op)} named order ${op.orderId ?? '(none)'}, absent from the final state`);
    else if (order.userId !== op.userId) tally.judge(`${describe(op)}: order ${order.id} belongs to ${order.userId}, not ${op.userId}`);
    else if (purchaseId !== undefined && order.purchaseId !== null && order.purchaseId !== purchaseId)
      tally.judge(`${describe(op)}: order ${order.id} is of purchase ${order.purchaseId}, not ${purchaseId}`);
    else tally.judge();
  }
  return tally.result();
}

/**
 * Each order must have been made by a request that was not refused: one answered 201 or never
 * definitely answered (a timeout, a 202), sent before the order's transaction began and not
 * answered before it (within the clock tolerance). A refusal is a lie when the only request that
 * could have made its purchase's order is the refused one; a poll's REFUSED is final, so its
 * purchase may have no order at all.
 */
export function refusalsDidNothing(m: Model): { refusals: RuleResult; explained: RuleResult } {
  const refusals = new RuleTally('no refused purchase has an order (now or later)');
  const explained = new RuleTally('every order was made by a request that was not refused');
  const skew = m.options.skewMs;
  const byGroup = new Map<string, FinalOrder[]>();
  const unmatched: FinalOrder[] = [];
  for (const order of m.orders) {
    if (!m.users.has(order.userId)) continue;
    const key = order.purchaseId !== null ? groupKey(order.userId, order.purchaseId) : undefined;
    if (key !== undefined && m.groups.has(key)) byGroup.set(key, [...(byGroup.get(key) ?? []), order]);
    else unmatched.push(order);
  }
  for (const [key, group] of m.groups) {
    const definiteRefusals = group.purchases.filter((p) => verdictOf(p) === 'refused');
    const pollRefused = group.polls.filter((p) => p.state === 'REFUSED');
    const orders = byGroup.get(key) ?? [];
    const refusedCount = definiteRefusals.length + pollRefused.length;
    if (!orders.length) {
      for (let i = 0; i < refusedCount; i++) refusals.judge();
      continue;
    }
    for (const order of orders) {
      const makers = group.purchases.filter((p) => verdictOf(p) !== 'refused' && p.invokeMs <= order.createdAtMs + skew && latestEffectMs(p) >= order.createdAtMs - skew);
      const culprit = definiteRefusals.find((r) => r.invokeMs <= order.createdAtMs + skew && r.completeMs >= order.createdAtMs - skew);
      if (pollRefused.length) refusals.judge(`purchase ${group.id}: polled REFUSED (${describe(pollRefused[0])}) but order ${order.id} exists`);
      else if (!makers.length && culprit) refusals.judge(`purchase ${group.id}: ${describe(culprit)} but order ${order.id} was created at ${order.createdAtMs}, during it`);
      else if (refusedCount) refusals.judge();
      explained.judge(makers.length || culprit ? undefined : `order ${order.id} (purchase ${group.id}, created ${order.createdAtMs}): no request could have made it`);
    }
  }
  // Orders whose purchase id no operation knew: only a keyless purchase that got no answer explains them.
  const spare = new Map(m.anonymousUnknown);
  for (const order of unmatched) {
    const slot = `${order.userId}|${order.productId}`;
    const left = spare.get(slot) ?? 0;
    if (left > 0) spare.set(slot, left - 1);
    explained.judge(left > 0 ? undefined : `order ${order.id} of ${order.userId} (purchase ${order.purchaseId ?? 'none'}): no request in the history names it`);
  }
  return { refusals: refusals.result(), explained: explained.result() };
}

/** At most one order per purchase id (an unknown answer resolves once), and its 201s all name it. */
export function oneOrderPerPurchase(m: Model): RuleResult {
  const tally = new RuleTally('one order per (user, purchase id)');
  const seen = new Map<string, string>();
  for (const order of m.orders) {
    if (order.purchaseId === null) continue;
    const key = groupKey(order.userId, order.purchaseId);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, order.id);
    else tally.fail(`purchase ${order.purchaseId} of ${order.userId}: orders ${first} and ${order.id}`);
  }
  for (const group of m.groups.values()) {
    const named = new Set(group.purchases.filter((p: PurchaseRecord) => verdictOf(p) === 'ok' && p.orderId !== undefined).map((p) => p.orderId));
    tally.judge(named.size > 1 ? `purchase ${group.id}: its 201s named orders ${[...named].join(', ')}` : undefined);
  }
  return tally.result();
}
