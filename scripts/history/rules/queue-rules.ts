import { admissionOrder, queueOrder } from '../../loadtest/admission-order';
import { BuyerTrace } from '../../loadtest/waiting-room-trace';
import { FinalOrder, OpRecord, QueueJoinRecord, QueuePollRecord, verdictOf } from '../format';
import { Model } from '../model';
import { OrderSpan } from '../order-spans';
import { StepLevels } from '../step-levels';
import { RuleResult, RuleTally } from '../tally';
import { Cause, prefixSum } from './stock-read-rule';

type TicketAnswer = QueueJoinRecord | QueuePollRecord;
const isTicketAnswer = (op: OpRecord): op is TicketAnswer => (op.op === 'queueJoin' || op.op === 'queuePoll') && verdictOf(op) === 'ok';

/** Per queued product (one the history has queue records of): each user's ticket answers, in the order they were sent. */
export function queueAnswers(m: Model): Map<string, Map<string, TicketAnswer[]>> {
  const byProduct = new Map<string, Map<string, TicketAnswer[]>>();
  for (const op of m.ops) {
    if (op.op !== 'queueJoin' && op.op !== 'queuePoll') continue;
    const product = byProduct.get(op.productId) ?? new Map<string, TicketAnswer[]>();
    byProduct.set(op.productId, product);
    if (!isTicketAnswer(op)) continue;
    product.set(op.userId, [...(product.get(op.userId) ?? []), op]);
  }
  for (const users of byProduct.values()) for (const list of users.values()) list.sort((a, b) => a.invokeMs - b.invokeMs);
  return byProduct;
}

const firstAdmitted = (answers: TicketAnswer[] | undefined): TicketAnswer | undefined => answers?.find((a) => a.state === 'ADMITTED');

/** On a queued product, every order follows an ADMITTED answer its user saw, sent before the order was made. */
export function purchasesAdmitted(m: Model, queues: Map<string, Map<string, TicketAnswer[]>>): RuleResult {
  const tally = new RuleTally('no purchase on a queued product without an admission');
  for (const order of m.orders) {
    const users = queues.get(order.productId);
    if (!users || !m.users.has(order.userId)) continue;
    const admitted = firstAdmitted(users.get(order.userId));
    const ok = admitted !== undefined && admitted.invokeMs <= order.createdAtMs + m.options.skewMs;
    tally.judge(ok ? undefined : `order ${order.id} of ${order.userId} (created ${order.createdAtMs}): ${admitted ? `its first ADMITTED answer was asked for only at ${admitted.invokeMs}` : 'no answer ever admitted its user'}`);
  }
  return tally.result();
}

/**
 * Admissions follow the queue order (pre-queue tickets by HMAC(seed, ticketId), then arrival): no
 * ticket is seen ADMITTED while one ahead of it is still WAITING (scripts/loadtest/admission-order.ts).
 */
export function admissionsInOrder(m: Model, queues: Map<string, Map<string, TicketAnswer[]>>): RuleResult {
  const tally = new RuleTally('admissions follow ticket order');
  for (const [productId, users] of queues) {
    const room = m.products.get(productId)?.waitingRoom;
    const traces = [...users].map(([userId, answers]) => traceOf(userId, answers));
    const tickets = queueOrder(traces, room?.saleStartsAtMs ?? null, room?.seed ?? null);
    const order = admissionOrder(tickets, 0);
    for (const _ of tickets) tally.judge();
    for (let i = 0; i < order.inversions; i++) tally.fail(`product ${productId}: ${order.examples[i] ?? 'another inversion'} (ms since the epoch)`);
  }
  return tally.result();
}

function traceOf(userId: string, answers: TicketAnswer[]): BuyerTrace {
  const trace: BuyerTrace = { userId, answers: answers.map((a) => ({ op: a.op, invokeMs: a.invokeMs, completeMs: a.completeMs, status: a.status ?? 0 })), final: '' };
  for (const a of answers) {
    trace.ticketId ??= a.ticketId;
    if (a.op === 'queueJoin') trace.joinCompleteMs ??= a.completeMs;
    if (a.state === 'WAITING') trace.lastWaitingInvokeMs = Math.max(trace.lastWaitingInvokeMs ?? -Infinity, a.invokeMs);
    if (a.state === 'ADMITTED') trace.admittedAtMs = Math.min(trace.admittedAtMs ?? Infinity, a.completeMs);
  }
  trace.joinCompleteMs ??= answers[0]?.completeMs;
  return trace;
}

/**
 * Outstanding admissions never exceed the stock still for sale. A ticket surely holds an
 * admission from its first ADMITTED answer until its last ADMITTED answer was asked for, or until
 * its user's order was made. The stock for sale then is at most the initial stock, less the
 * orders already shown, plus those that could have ended (judged until an admin set could land).
 */
export function admissionsWithinStock(m: Model, queues: Map<string, Map<string, TicketAnswer[]>>, spans: OrderSpan[]): RuleResult {
  const tally = new RuleTally('outstanding admissions never exceed the stock for sale');
  const skew = m.options.skewMs;
  for (const [productId, users] of queues) {
    const product = m.products.get(productId);
    if (!product) continue;
    const firstOrder = new Map<string, FinalOrder>();
    for (const o of m.orders) if (o.productId === productId && !(o.createdAtMs >= (firstOrder.get(o.userId)?.createdAtMs ?? Infinity))) firstOrder.set(o.userId, o);
    const held = [];
    for (const [userId, answers] of users) {
      const first = firstAdmitted(answers);
      if (!first) continue;
      const lastAsked = answers.filter((a) => a.state === 'ADMITTED').reduce((max, a) => Math.max(max, a.invokeMs), -Infinity);
      const order = firstOrder.get(userId);
      const until = Math.max(lastAsked, order && order.createdAtMs > first.completeMs ? order.createdAtMs - skew : -Infinity);
      held.push({ from: first.completeMs, until, units: 1 });
    }
    const levels = new StepLevels(held);
    const firstSet = m.ops.reduce((min, op) => (op.op === 'setStock' && op.productId === productId && verdictOf(op) !== 'refused' ? Math.min(min, op.invokeMs) : min), Infinity);
    const shown: Cause[] = m.orders.filter((o) => o.productId === productId && m.shownByMs.has(o.id)).map((o) => ({ fromMs: m.shownByMs.get(o.id) as number, toMs: Infinity, units: o.quantity }));
    const ended: Cause[] = spans.filter((s) => s.order.productId === productId && s.sureUntil !== Infinity).map((s) => ({ fromMs: s.sureUntil - skew, toMs: Infinity, units: s.order.quantity }));
    const shownBy = prefixSum(shown, 'fromMs');
    const endedBy = prefixSum(ended, 'fromMs');
    const supply = product.initialStock + (m.returnedBefore.get(productId) ?? 0);
    let problem: string | undefined;
    levels.times.forEach((t, i) => {
      if (problem || t >= firstSet || levels.levels[i] <= 0) return;
      const most = supply - shownBy(t) + endedBy(t + 1);
      if (levels.levels[i] > most) problem = `product ${productId}: ${levels.levels[i]} admission(s) outstanding at ${new Date(t).toISOString()}, at most ${most} unit(s) for sale then`;
    });
    tally.judge(problem);
  }
  return tally.result();
}
