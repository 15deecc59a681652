import type { AdminAction } from '../sale-terms/admin-action-chain';
import type { SaleCommitment } from '../sale-terms/sale-commitment';
import type { SaleDraw } from './sale-draw';

export const AUDIT_FORMAT = 'flash-sale-queue-audit/1';

/** The queue as Redis holds it when the audit is made. */
export interface AuditedQueue {
  epoch: string;
  /** Tickets taken before the start (shuffled); -1 while the pre-queue is still open. */
  pre: number;
  /** Tickets taken in all. */
  seq: number;
  /** Places admitted so far. */
  served: number;
  /** 4-byte big-endian places of the pre-queue's tickets (ticket n at 4(n - 1)); empty until shuffled. */
  ranks: Buffer;
  /** The admission log: "first:last:at" per admitting step. */
  admissions: string[];
}

export interface AuditInput {
  productId: string;
  nowMs: number;
  commitment: SaleCommitment | null;
  /** Null before the start: nothing is revealed yet. */
  seed: Buffer | null;
  draw: SaleDraw | null;
  queue: AuditedQueue | null;
  /** SHA-256 (hex) of ticket n as its holder got it; null when unknown. */
  ticketHash: (n: number) => string | null;
  adminActions: AdminAction[];
}

/** Tickets serialised per chunk: the file for 100,000 tickets is sent in pieces, never one string. */
const CHUNK = 5000;

/**
 * The audit file of a sale as JSON text, in chunks (see docs/API.md, "GET /products/:id/queue/audit"):
 * the commitment; once the draw is decided, the reveal (seed, beacon round and signature or the
 * fallback, the shuffle's key) and every ticket's id, hash, place and admission time; the chain of
 * admin actions. Tickets come last so that the head stays small for a reader that streams.
 */
export function* auditChunks(input: AuditInput): Generator<string> {
  // Revealed once the start's draw is decided, the pre-queue closed and its shuffle stored: only
  // then are places final (an admin's post may decide the draw a moment before the leader shuffles).
  const queue = input.queue;
  const ranked = queue !== null && queue.pre >= 0 && queue.ranks.length >= queue.pre * 4;
  const revealed = input.seed !== null && input.draw !== null && ranked;
  const head = {
    format: AUDIT_FORMAT,
    productId: input.productId,
    generatedAt: new Date(input.nowMs).toISOString(),
    commitment: input.commitment,
    reveal: revealed
      ? {
          seed: input.seed!.toString('hex'),
          beacon: input.draw!.beacon,
          round: input.draw!.round,
          signature: input.draw!.signature,
          shuffleSeed: input.draw!.shuffleSeed.toString('hex'),
        }
      : null,
    queue: revealed
      ? {
          epoch: input.queue!.epoch,
          preQueue: input.queue!.pre,
          tickets: input.queue!.seq,
          served: input.queue!.served,
        }
      : null,
    adminActions: input.adminActions,
  };
  const text = JSON.stringify(head);
  yield `${text.slice(0, -1)},"tickets":[`;
  if (revealed) yield* ticketChunks(input.queue!, input.ticketHash);
  yield ']}';
}

function* ticketChunks(queue: AuditedQueue, ticketHash: AuditInput['ticketHash']): Generator<string> {
  const admittedAt = admissionTimes(queue);
  for (let from = 1; from <= queue.seq; from += CHUNK) {
    const rows: string[] = [];
    for (let n = from; n < from + CHUNK && n <= queue.seq; n++) {
      const place = n > queue.pre ? n : queue.ranks.readUInt32BE((n - 1) * 4);
      const at = admittedAt[place];
      rows.push(
        JSON.stringify({
          ticketId: String(n),
          ticketHash: ticketHash(n),
          place,
          admittedAt: at ? new Date(at).toISOString() : null,
        }),
      );
    }
    yield (from > 1 ? ',' : '') + rows.join(',');
  }
}

/** When each place was admitted (ms, 0: not admitted), from the leader's log. */
function admissionTimes(queue: AuditedQueue): Float64Array {
  const at = new Float64Array(queue.seq + 1);
  for (const entry of queue.admissions) {
    const [first, last, ms] = entry.split(':').map(Number);
    for (let place = first; place <= Math.min(last, queue.seq); place++) at[place] = ms;
  }
  return at;
}
