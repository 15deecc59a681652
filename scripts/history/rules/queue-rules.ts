import { admissionOrder, queueOrder } from '../../loadtest/admission-order';
import { BuyerTrace } from '../../loadtest/waiting-room-trace';
import { FinalOrder, OpRecord, QueueJoinRecord, QueuePollRecord, verdictOf } from '../format';
import { mostForSale } from '../for-sale';
import { Model } from '../model';
import { OrderSpan } from '../order-spans';
import { StepLevels } from '../step-levels';
import { RuleResult, RuleTally } from '../tally';

type TicketAnswer = QueueJoinRecord | QueuePollRecord;
const isTicketAnswer = (op: OpRecord): op is TicketAnswer =>
  (op.op === 'queueJoin' || op.op === 'queuePoll') && verdictOf(op) === 'ok';

/** Per queued product (one the history has queue records of): each user's ticket answers, in the order they were sent. */
export function queueAnswers(m: Model): Map<string, Map<string, TicketAnswer[]>> {
  const byProduct = new Map<string, Map<string, TicketAnswer[]>>();
  for (const op of [...m.byKind.queueJoin, ...m.byKind.queuePoll]) {
    const product = byProduct.get(op.productId) ?? new Map<string, TicketAnswer[]>();
    byProduct.set(op.productId, product);
    if (!isTicketAnswer(op)) continue;
    product.set(op.userId, [...(product.get(op.userId) ?? []), op]);
  }
  for (const users of byProduct.values())
    for (const list of users.values()) list.sort((a, b) => a.invokeMs - b.invokeMs);
  return byProduct;
}

const firstAdmitted = (answers: TicketAnswer[] | undefined): TicketAnswer | undefined =>
  answers?.find((a) => a.state === 'ADMITTED');

/**
 * On a queued product, every order is made under an admission its user held then: an ADMITTED
 * answer asked for before the order was made, and no EXPIRED answer between that admission and
 * the order (an expired ticket buys nothing until a new admission).
 */
export function purchasesAdmitted(m: Model, queues: Map<string, Map<string, TicketAnswer[]>>): RuleResult {
  const tally = new RuleTally('no purchase on a queued product without an admission');
  const skew = m.options.skewMs;
  for (const order of m.orders) {
    const users = queues.get(order.productId);
    if (!users || !m.hasUser(order.userId)) continue;
    const answers = users.get(order.userId) ?? [];
    // The last admission asked for before the order was made, and any expiry seen after it, surely before the order.
    const admitted = answers.filter((a) => a.state === 'ADMITTED' && a.invokeMs <= order.createdAtMs + skew).pop();
    const expired =
      admitted &&
      answers.find(
        (a) => a.state === 'EXPIRED' && a.invokeMs >= admitted.completeMs && a.completeMs < order.createdAtMs - skew,
      );
    const where = `order ${order.id} of ${order.userId} (created ${order.createdAtMs})`;
    if (!admitted) {
      const first = firstAdmitted(answers);
      tally.judge(
        `${where}: ${first ? `its first ADMITTED answer was asked for only at ${first.invokeMs}` : 'no answer ever admitted its user'}`,
      );
    } else
      tally.judge(
        expired
          ? `${where}: its ticket was seen EXPIRED at ${expired.completeMs}, after its admission and before the order, with no new admission`
          : undefined,
      );
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
    for (let i = 0; i < order.inversions; i++)
      tally.fail(`product ${productId}: ${order.examples[i] ?? 'another inversion'} (ms since the epoch)`);
  }
  return tally.result();
}

function traceOf(userId: string, answers: TicketAnswer[]): BuyerTrace {
  const trace: BuyerTrace = {
    userId,
    answers: answers.map((a) => ({ op: a.op, invokeMs: a.invokeMs, completeMs: a.completeMs, status: a.status ?? 0 })),
    final: '',
  };
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
 * Outstanding admissions never exceed the stock still for sale, for the whole history. A ticket
 * surely holds an admission from its first ADMITTED answer until its last ADMITTED answer was
 * asked for, or until its user's order was made. At each instant that count changes it must fit
 * the most the product can have had for sale then (mostForSale: across stock sets too).
 */
export function admissionsWithinStock(
  m: Model,
  queues: Map<string, Map<string, TicketAnswer[]>>,
  spans: OrderSpan[],
  preexisting: OrderSpan[] = [],
): RuleResult {
  const tally = new RuleTally('outstanding admissions never exceed the stock for sale');
  const skew = m.options.skewMs;
  const ended = [...spans, ...preexisting];
  for (const [productId, users] of queues) {
    if (!m.products.has(productId)) continue;
    const firstOrder = new Map<string, FinalOrder>();
    for (const o of m.orders)
      if (o.productId === productId && !(o.createdAtMs >= (firstOrder.get(o.userId)?.createdAtMs ?? Infinity)))
        firstOrder.set(o.userId, o);
    const held = [];
    for (const [userId, answers] of users) {
      const first = firstAdmitted(answers);
      if (!first) continue;
      const lastAsked = answers
        .filter((a) => a.state === 'ADMITTED')
        .reduce((max, a) => Math.max(max, a.invokeMs), -Infinity);
      const order = firstOrder.get(userId);
      const until = Math.max(
        lastAsked,
        order && order.createdAtMs > first.completeMs ? order.createdAtMs - skew : -Infinity,
      );
      held.push({ from: first.completeMs, until, units: 1 });
    }
    const levels = new StepLevels(held);
    const instants = levels.times.filter((_, i) => levels.levels[i] > 0);
    const bounds = mostForSale(
      m,
      productId,
      ended,
      instants.map((t) => ({ fromMs: t, toMs: t })),
    );
    const i = instants.findIndex((t, k) => levels.at(t) > bounds[k].bound);
    tally.judge(
      i < 0
        ? undefined
        : `product ${productId}: ${levels.at(instants[i])} admission(s) outstanding at ${new Date(instants[i]).toISOString()}, at most ${bounds[i].bound} unit(s) for sale then (${bounds[i].why})`,
    );
  }
  return tally.result();
}
