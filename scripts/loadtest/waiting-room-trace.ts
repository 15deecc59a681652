/** What the waiting-room flow keeps of each buyer: the raw material of the report's queue sections. */

/** One answer to a join or a poll, as the buyer saw it (client clock, ms since the epoch). */
export interface QueueAnswer {
  op: 'queueJoin' | 'queuePoll';
  invokeMs: number;
  completeMs: number;
  /** 0 with `error` set for a transport failure. */
  status: number;
  error?: string;
  code?: string;
  retryAfterMs?: number;
  ticket?: string;
  ticketId?: string;
  state?: string;
  position?: number;
  pollAfterMs?: number;
  admission?: string;
}

export interface BuyerTrace {
  userId: string;
  /** The ticket's public id (its number, for tickets in arrival order). */
  ticketId?: string;
  /** When the first 200 to the join came. */
  joinCompleteMs?: number;
  /** When the last answer saying WAITING was asked for: the ticket was not admitted before this. */
  lastWaitingInvokeMs?: number;
  /** When the first answer saying ADMITTED came: the ticket was admitted by then. */
  admittedAtMs?: number;
  /** When the answer that ended the last purchase attempt came, and what it was ("201", "409 SOLD_OUT"...). */
  purchaseAnsweredAtMs?: number;
  purchaseOutcome?: string;
  /** When this buyer first heard SOLD_OUT (a join, a poll or a purchase). */
  soldOutSeenAtMs?: number;
  /** BOUGHT, SOLD_OUT, EXPIRED, TIMED_OUT (the run's time bound), or the answer that stopped it. */
  final: string;
  answers: QueueAnswer[];
}
