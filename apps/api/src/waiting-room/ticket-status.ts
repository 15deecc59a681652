import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PollReply } from './scripts/poll';

export type TicketState = 'WAITING' | 'ADMITTED' | 'SOLD_OUT' | 'EXPIRED' | 'BOUGHT';

/** The contract's ticket status. */
export class TicketStatusView {
  @ApiProperty({ description: 'the signed ticket: the credential for polling' }) ticket!: string;
  @ApiProperty({ example: '17', description: "the ticket's public id (unique per product)" }) ticketId!: string;
  @ApiProperty({ enum: ['WAITING', 'ADMITTED', 'SOLD_OUT', 'EXPIRED', 'BOUGHT'] }) state!: TicketState;
  @ApiProperty({ example: 42, description: '1 for the next ticket to be admitted, 0 once admitted' }) position!: number;
  @ApiProperty({ example: 8, description: 'estimated seconds until admission' }) etaS!: number;
  @ApiProperty({ example: 2300, description: 'poll again after this long (spread at random, shorter near the front)' })
  pollAfterMs!: number;
  @ApiPropertyOptional({ description: 'send as the Admission header of POST /products/:id/purchase' })
  admission?: string;
  @ApiPropertyOptional({ example: '2026-11-21T12:02:00.000Z' }) admissionExpiresAt?: string;
}

const MIN_POLL_MS = 500;
/** The longest any ticket is told to wait before its next poll. */
export const MAX_POLL_MS = 15_000;
/**
 * The mean interval a waiting ticket polls at while the poll budget allows it: with the ±25%
 * spread the longest is 750 ms, which leaves a quarter of a second for the poll's own round trip
 * (and a busy client's late timers), so a poller hears of the sell-out within a second.
 */
const NOTICE_POLL_MS = 600;
const SETTLED_POLL_MS = 30_000;
const JITTER = 0.25;

export interface StatusInputs {
  reply: PollReply;
  nowMs: number;
  saleStartsAtMs: number | null;
  /** Admissions per second assumed when the leader has not published a rate yet. */
  fallbackRate: number;
  /** Polls per second the fleet is sized to answer for one product's queue (WAITING_ROOM_POLLS_PER_S). */
  pollsPerSecond: number;
  random?: () => number;
}

/** The state, place and timing of a ticket from what its poll read; the admission is signed by the caller. */
export function describeTicket(
  input: StatusInputs,
): Omit<TicketStatusView, 'ticket' | 'ticketId' | 'admission'> & { admissionExpiresAtMs?: number } {
  const { reply, nowMs } = input;
  const random = input.random ?? Math.random;
  const settled = (state: TicketState) => ({
    state,
    position: 0,
    etaS: 0,
    pollAfterMs: jitter(SETTLED_POLL_MS, random),
  });
  if (reply.bought) return settled('BOUGHT');
  if (reply.soldOut) return settled('SOLD_OUT');
  if (reply.place > 0 && reply.place <= reply.served) {
    if (reply.admissionExpiresAt <= nowMs) return settled('EXPIRED');
    const leftMs = reply.admissionExpiresAt - nowMs;
    return {
      state: 'ADMITTED',
      position: 0,
      etaS: 0,
      pollAfterMs: jitter(Math.min(Math.max(leftMs / 4, MIN_POLL_MS), MAX_POLL_MS), random),
      admissionExpiresAt: new Date(reply.admissionExpiresAt).toISOString(),
      admissionExpiresAtMs: reply.admissionExpiresAt,
    };
  }
  // An unshuffled pre-queue ticket is at worst last of the pre-queue.
  const place = reply.place > 0 ? reply.place : reply.pre >= 0 ? reply.pre : reply.seq;
  const position = Math.max(place - reply.served, 1);
  const rate = reply.rate > 0 ? reply.rate : input.fallbackRate;
  const untilStartS =
    input.saleStartsAtMs !== null && input.saleStartsAtMs > nowMs ? (input.saleStartsAtMs - nowMs) / 1000 : 0;
  const etaS = Math.ceil(untilStartS + position / rate);
  return {
    state: 'WAITING',
    position,
    etaS,
    pollAfterMs: jitter(
      waitingPollMs(etaS, reply.seq - reply.served, input.pollsPerSecond, untilStartS * 1000),
      random,
    ),
  };
}

/**
 * How long a waiting ticket waits before its next poll (before the spread): NOTICE_POLL_MS, so that
 * each learns of an admission or the sell-out within a second, unless the queue is longer than the
 * fleet's poll budget allows: then the interval grows with the queue (`waiting / pollsPerSecond`),
 * keeping the product's poll rate at the budget. A ticket
 * near the front polls more often, a quarter of its wait, down to MIN_POLL_MS. Before the sale
 * starts nothing can change, so a ticket polls after half the time left until the start.
 */
export function waitingPollMs(etaS: number, waiting: number, pollsPerSecond: number, untilStartMs = 0): number {
  const budgetMs = (Math.max(waiting, 0) * 1000) / pollsPerSecond;
  const pollMs = Math.max(Math.min((etaS * 1000) / 4, Math.max(NOTICE_POLL_MS, budgetMs)), untilStartMs / 2);
  return Math.min(Math.max(pollMs, MIN_POLL_MS), MAX_POLL_MS);
}

/** The status of a ticket whose queue Redis lost: EXPIRED, so its holder joins again. */
export const lostPlace = () => ({
  state: 'EXPIRED' as const,
  position: 0,
  etaS: 0,
  pollAfterMs: jitter(SETTLED_POLL_MS, Math.random),
});

/** ±25 %, so buyers who joined together do not poll together. */
const jitter = (ms: number, random: () => number): number => Math.round(ms * (1 - JITTER + 2 * JITTER * random()));
