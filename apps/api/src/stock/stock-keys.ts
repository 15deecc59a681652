/** A product's stock units and its keys: the units' lock keys, and the Redis keys that share their slot. */

/** The fence of the lock a stock write runs under; null in DB-only mode (Redis unreachable). */
export type Fence = number | null;

/** Where units of a product live: the product row, or one segment row of a segmented product. */
export interface StockUnit {
  productId: string;
  segment: number | null;
}

export const stockLockKey = (unit: StockUnit): string =>
  unit.segment === null ? `stock:${unit.productId}` : `stock:${unit.productId}:${unit.segment}`;

/** The keys of every unit of a product: its own, or each of its segments'. */
export const stockLockKeys = (productId: string, segments: number): string[] =>
  segments > 1
    ? Array.from({ length: segments }, (_, segment) => stockLockKey({ productId, segment }))
    : [stockLockKey({ productId, segment: null })];

/**
 * Redis keys for one product. They all carry the hash tag the lock library gives the product's
 * lock key (`{stock:<id>}`), so the lock, the sold-out flag and the cache of a product live in one
 * Redis Cluster slot (with the fence counter the library keeps for that slot).
 */
export const productTag = (productId: string) => `{${stockLockKey({ productId, segment: null })}}`;

export const productKeys = (prefix: string, productId: string) => {
  const tag = productTag(productId);
  return {
    soldOut: `${prefix}${tag}:sold-out`,
    view: `${prefix}${tag}:view`,
    rebuild: `cache-rebuild:${productId}`,
  };
};
