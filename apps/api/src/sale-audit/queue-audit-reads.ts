import { createHash } from 'node:crypto';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import type { TicketSigner } from '../waiting-room/ticket-signer';
import type { WaitingRoomKeys } from '../waiting-room/waiting-room-keys';
import type { AuditedQueue } from './queue-audit';

const SCAN_COUNT = 5000;

/** The queue's counters, shuffle and admission log, as the audit lists them. */
export async function readAuditedQueue(redis: RedisConnection, k: WaitingRoomKeys): Promise<AuditedQueue> {
  const [[epoch, pre, seq, served], ranks, admissions] = await Promise.all([
    redis.hmget(k.meta, 'epoch', 'pre', 'seq', 'served'),
    redis.getBuffer(k.ranks),
    redis.lrange(k.admissions, 0, -1),
  ]);
  return {
    epoch: epoch ?? '',
    pre: pre === null ? -1 : Number(pre),
    seq: Number(seq ?? 0),
    served: Number(served ?? 0),
    ranks: ranks ?? Buffer.alloc(0),
    admissions,
  };
}

/**
 * SHA-256 (hex) of each ticket as its holder got it, by number: the ticket is signed again from
 * the user the queue recorded for it (tickets are deterministic), so a buyer finds their own row
 * by hashing their ticket, and nobody else learns whose row it is. Read by HSCAN in slices, so
 * that Redis never stops for a sale's 100,000 entries.
 */
export async function readTicketHashes(
  redis: RedisConnection,
  k: WaitingRoomKeys,
  signer: TicketSigner,
  ticket: { productId: string; epoch: string; seq: number },
): Promise<string[]> {
  const hashes = new Array<string>(ticket.seq + 1);
  let cursor = '0';
  do {
    const [next, pairs] = await redis.hscan(k.users, cursor, 'COUNT', SCAN_COUNT);
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const number = Number(pairs[i + 1]);
      const signed = signer.ticket({
        productId: ticket.productId,
        epoch: ticket.epoch,
        number,
        userTag: signer.userTag(pairs[i]),
      });
      hashes[number] = createHash('sha256').update(signed).digest('hex');
    }
    cursor = next;
  } while (cursor !== '0');
  return hashes;
}
