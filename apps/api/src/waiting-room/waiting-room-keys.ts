import { productKeys, productTag } from '../stock/stock-keys';

/**
 * Redis keys of one product's queue. They carry the product's hash tag, so the queue, the
 * product's sold-out flag and its lock live in one Cluster slot and one script may touch them all.
 */
export const waitingRoomKeys = (prefix: string, productId: string) => {
  const base = `${prefix}${productTag(productId)}:wr`;
  return {
    /** Hash of counters: seq (tickets taken), pre (pre-queue size), ranked, served, soldOut, rate, credit, tickAt, bought, expired. */
    meta: base,
    /** Hash userId -> ticket number: join idempotency, the only per-user entry. */
    users: `${base}:users`,
    /** String of 4-byte big-endian places, one per pre-queue ticket (ticket n at offset 4(n-1)). */
    ranks: `${base}:ranks`,
    /** Sorted set place -> admission expiry (ms): the outstanding admissions. */
    admitted: `${base}:admitted`,
    /** Sorted set place -> admission expiry (ms): admissions whose purchase is in flight. */
    buying: `${base}:buying`,
    /** Set of places whose buyer has an order. */
    bought: `${base}:bought`,
    /**
     * Hash client address -> the numbers of its tickets that may still be live, comma-separated, at
     * most the cap (kept only when the sale caps live tickets per address).
     */
    addresses: `${base}:address-tickets`,
    /**
     * List of "first:last:at" entries, one per admission step that admitted: places first..last were
     * admitted at `at` (ms). Written by the leader only; read by the sale's audit (sale-audit/).
     */
    admissions: `${base}:admissions`,
    /** Sorted set nonce -> expiry (ms): the join-work challenges used, until they expire. */
    workNonces: `${base}:work`,
    /** The purchase path's sold-out flag, read so that pollers see SOLD_OUT at once. */
    soldOutFlag: productKeys(prefix, productId).soldOut,
  };
};

export type WaitingRoomKeys = ReturnType<typeof waitingRoomKeys>;
