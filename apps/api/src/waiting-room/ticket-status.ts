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
  @ApiProperty({ example: 2300, description: 'poll again after this long (spread at random, shorter near the front)' }) pollAfterMs!: number;
  @ApiPropertyOptional({ description: 'send as the Admission header of POST /products/:id/purchase' }) admission?: string;
  @ApiPropertyOptional({ example: '2026-11-21T12:02:00.000Z' }) admissionExpiresAt?: string;
}

const MIN_POLL_MS = 500;
const MAX_POLL_MS = 15_000;
const SETTLED_POLL_MS = 30_000;
const JITTER = 0.25;

export interface StatusInputs {
  reply: PollReply;
  nowMs: number;
  saleStartsAtMs: number | null;
  /** Admissions per second assumed when the leader has not published a rate yet. */
  fallbackRate: number;
  random?: () => number;
}

/** The state, place and timing of a ticket from what its poll read; the admission is signed by the caller. */
export function describeTicket(input: StatusInputs): Omit<TicketStatusView, 'ticket' | 'ticketId' | 'admission'> & { admissionExpiresAtMs?: number } {
  const { reply, nowMs } = input;
  const random = input.random ?? Math.random;
  const settled = (state: TicketState) => ({ state, position: 0, etaS: 0, pollAfterMs: jitter(SETTLED_POLL_MS, random) });
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
  const untilStartS = input.saleStartsAtMs !== null && input.saleStartsAtMs > nowMs ? (input.saleStartsAtMs - nowMs) / 1000 : 0;
  const etaS = Math.ceil(untilStartS + position / rate);
  // A quarter of the wait, so a buyer polls a few times on the way and often near the front.
  const pollMs = Math.min(Math.max((etaS * 1000) / 4, MIN_POLL_MS), MAX_POLL_MS);
  return { state: 'WAITING', position, etaS, pollAfterMs: jitter(pollMs, random) };
}

/** The status of a ticket whose queue Redis lost: EXPIRED, so its holder joins again. */
export const lostPlace = () => ({ state: 'EXPIRED' as const, position: 0, etaS: 0, pollAfterMs: jitter(SETTLED_POLL_MS, Math.random) });

/** ±25 %, so buyers who joined together do not poll together. */
const jitter = (ms: number, random: () => number): number => Math.round(ms * (1 - JITTER + 2 * JITTER * random()));
