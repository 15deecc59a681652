import { AdmissionOrder, admissionOrder, queueOrder } from './admission-order';
import { increment, summarizeLatency } from './stats';
import { LatencySummary } from './types';
import { BuyerTrace } from './waiting-room-trace';

/** The report's waiting-room sections (report.json `waitingRoom`), all from what the buyers saw. */
export interface WaitingRoomReport {
  buyers: number;
  admitPerSecond?: number;
  /** How each buyer ended: BOUGHT, SOLD_OUT, EXPIRED, TIMED_OUT, ... */
  finals: Record<string, number>;
  joins: Record<string, number>;
  polls: Record<string, number>;
  /** People's polls sent sooner than the previous answer's pollAfterMs (the tool's own discipline: 0; bots poll at the per-ticket limit). */
  earlyPolls: number;
  /** From the join's answer to the first ADMITTED answer, over buyers admitted. */
  joinToAdmissionMs: LatencySummary;
  /** From the first ADMITTED answer to the answer that ended the purchase. */
  admissionToPurchaseMs: LatencySummary;
  order: AdmissionOrder;
  soldOut: SoldOutReach;
}

export interface SoldOutReach {
  /** Client time of the last 201 of the run (ms since the epoch); null when nothing was bought. */
  lastCreatedAtMs: number | null;
  /** Buyers who heard SOLD_OUT from a poll or a join (not from their own purchase). */
  pollers: number;
  /** Per poller: first SOLD_OUT answer minus the last 201. */
  reachMs: LatencySummary;
  /** Share of those pollers who heard it within 1 s. */
  within1s: number;
  /** Polls asked for more than 1 s after the last 201 that still answered WAITING or ADMITTED. */
  staleAnswers: number;
}

const STALE_AFTER_MS = 1000;

export function waitingRoomReport(
  traces: BuyerTrace[],
  run: {
    startedAtMs: number;
    saleStartsAtMs: number | null;
    seed: string | null;
    lastCreatedAtMs: number | null;
    admitPerSecond?: number;
  },
): WaitingRoomReport {
  const finals: Record<string, number> = {};
  const joins: Record<string, number> = {};
  const polls: Record<string, number> = {};
  let earlyPolls = 0;
  const toAdmission: number[] = [];
  const toPurchase: number[] = [];
  for (const t of traces) {
    increment(finals, t.final);
    t.answers.forEach((a, i) => {
      increment(
        a.op === 'queueJoin' ? joins : polls,
        a.error ? `error ${a.error}` : a.status === 200 ? `200 ${a.state}` : `${a.status} ${a.code ?? ''}`.trim(),
      );
      const previous = t.answers[i - 1];
      if (
        a.op === 'queuePoll' &&
        !isBot(t) &&
        previous?.status === 200 &&
        previous.pollAfterMs !== undefined &&
        a.invokeMs - previous.completeMs < previous.pollAfterMs
      )
        earlyPolls++;
    });
    if (t.admittedAtMs !== undefined && t.joinCompleteMs !== undefined)
      toAdmission.push(t.admittedAtMs - t.joinCompleteMs);
    if (t.admittedAtMs !== undefined && t.purchaseAnsweredAtMs !== undefined)
      toPurchase.push(t.purchaseAnsweredAtMs - t.admittedAtMs);
  }
  return {
    buyers: traces.length,
    admitPerSecond: run.admitPerSecond,
    finals,
    joins,
    polls,
    earlyPolls,
    joinToAdmissionMs: summarizeLatency(toAdmission),
    admissionToPurchaseMs: summarizeLatency(toPurchase),
    order: admissionOrder(queueOrder(traces, run.saleStartsAtMs, run.seed), run.startedAtMs),
    soldOut: soldOutReach(traces, run.lastCreatedAtMs),
  };
}

const isBot = (t: BuyerTrace): boolean => (t as { kind?: string }).kind === 'bot';

function soldOutReach(traces: BuyerTrace[], lastCreatedAtMs: number | null): SoldOutReach {
  const reach: number[] = [];
  let staleAnswers = 0;
  if (lastCreatedAtMs !== null) {
    for (const t of traces) {
      const first = t.answers.find((a) => (a.status === 200 && a.state === 'SOLD_OUT') || a.code === 'SOLD_OUT');
      if (first) reach.push(first.completeMs - lastCreatedAtMs);
      for (const a of t.answers)
        if (a.invokeMs > lastCreatedAtMs + STALE_AFTER_MS && (a.state === 'WAITING' || a.state === 'ADMITTED'))
          staleAnswers++;
    }
  }
  return {
    lastCreatedAtMs,
    pollers: reach.length,
    reachMs: summarizeLatency(reach),
    within1s: reach.length ? reach.filter((ms) => ms <= STALE_AFTER_MS).length / reach.length : 0,
    staleAnswers,
  };
}
