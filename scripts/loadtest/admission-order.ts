import { createHmac } from 'node:crypto';
import { lastAtOrBefore } from '../history/step-levels';
import { BuyerTrace } from './waiting-room-trace';

/**
 * Admission order against queue order, as clients can prove it.
 *
 * Queue order (the contract): tickets taken before `saleStartsAt` (the pre-queue) first, ranked
 * by the lowercase hex of HMAC-SHA256(seed, ticketId) ascending; then the others by ticket number
 * (arrival order). A ticket is pre-queue when its join was answered before `saleStartsAt`, in
 * arrival order when it was asked for after it; a join straddling the start is left out.
 *
 * A client sees an admission only at a poll, so each ticket has a window: it was still WAITING
 * when its last WAITING answer was asked for (`lastWaitingInvokeMs`), and ADMITTED by the time
 * its first ADMITTED answer came (`admittedAtMs`). An inversion is a pair A before B in queue
 * order where A was still waiting after B had been admitted: lastWaitingInvokeMs(A) >
 * admittedAtMs(B). Any such pair breaks "admission follows the queue order exactly"; the count
 * must be 0.
 */
export interface OrderedTicket {
  ticketId: string;
  userId: string;
  preQueue: boolean;
  /** The HMAC's hex (pre-queue) or the ticket number zero-padded (arrival): sorts in queue order. */
  rankKey: string;
  waitingUntilMs: number;
  admittedByMs: number;
}

export interface AdmissionOrder {
  /** Tickets compared (a join answered, and a place in the queue order known). */
  compared: number;
  preQueue: number;
  /** Tickets seen ADMITTED. */
  admitted: number;
  inversions: number;
  examples: string[];
  /** For the chart, by queue rank: [rank, first ADMITTED answer, last WAITING poll sent (null: none)], ms since the start. */
  points: [number, number, number | null][];
}

export function queueOrder(
  traces: BuyerTrace[],
  saleStartsAtMs: number | null,
  seedHex: string | null,
): OrderedTicket[] {
  const seed = seedHex ? Buffer.from(seedHex, 'hex') : null;
  const tickets: OrderedTicket[] = [];
  for (const t of traces) {
    if (t.ticketId === undefined || t.joinCompleteMs === undefined) continue;
    const join = t.answers.find((a) => a.status === 200);
    const preQueue = saleStartsAtMs !== null && t.joinCompleteMs < saleStartsAtMs;
    if (saleStartsAtMs !== null && !preQueue && join && join.invokeMs < saleStartsAtMs) continue;
    if (preQueue && !seed) continue;
    const rankKey = preQueue
      ? `0${createHmac('sha256', seed as Buffer)
          .update(t.ticketId, 'utf8')
          .digest('hex')}`
      : `1${t.ticketId.padStart(20, '0')}`;
    tickets.push({
      ticketId: t.ticketId,
      userId: t.userId,
      preQueue,
      rankKey,
      waitingUntilMs: t.lastWaitingInvokeMs ?? -Infinity,
      admittedByMs: t.admittedAtMs ?? Infinity,
    });
  }
  return tickets.sort((a, b) => (a.rankKey < b.rankKey ? -1 : a.rankKey > b.rankKey ? 1 : 0));
}

/** Counts the inversions in O(n log n): for each ticket, the earlier ones still waiting after it was admitted. */
export function admissionOrder(tickets: OrderedTicket[], startedAtMs: number): AdmissionOrder {
  const waits = [...new Set(tickets.map((t) => t.waitingUntilMs))].sort((a, b) => a - b);
  const tree = new Int32Array(waits.length + 1);
  const add = (i: number) => {
    for (i++; i <= waits.length; i += i & -i) tree[i]++;
  };
  const countUpTo = (i: number) => {
    let sum = 0;
    for (i++; i > 0; i -= i & -i) sum += tree[i];
    return sum;
  };
  let inversions = 0;
  const examples: string[] = [];
  let latest: OrderedTicket | undefined;
  for (let j = 0; j < tickets.length; j++) {
    const b = tickets[j];
    if (Number.isFinite(b.admittedByMs)) {
      // Earlier tickets whose waitingUntil > b.admittedBy: all inserted minus those <= it.
      const notAfter = lastAtOrBefore(waits, b.admittedByMs);
      const later = j - (notAfter >= 0 ? countUpTo(notAfter) : 0);
      inversions += later;
      if (later > 0 && examples.length < 5 && latest)
        examples.push(
          `ticket ${latest.ticketId} (earlier in the queue) was still WAITING at +${latest.waitingUntilMs - startedAtMs} ms, ticket ${b.ticketId} ADMITTED by +${b.admittedByMs - startedAtMs} ms`,
        );
    }
    add(lowerBound(waits, b.waitingUntilMs));
    if (!latest || b.waitingUntilMs > latest.waitingUntilMs) latest = b;
  }
  const points = tickets.flatMap((t, rank): [number, number, number | null][] =>
    Number.isFinite(t.admittedByMs)
      ? [
          [
            rank + 1,
            t.admittedByMs - startedAtMs,
            Number.isFinite(t.waitingUntilMs) ? t.waitingUntilMs - startedAtMs : null,
          ],
        ]
      : [],
  );
  return {
    compared: tickets.length,
    preQueue: tickets.filter((t) => t.preQueue).length,
    admitted: points.length,
    inversions,
    examples,
    points,
  };
}

function lowerBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
