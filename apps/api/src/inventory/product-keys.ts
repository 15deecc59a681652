/**
 * Redis keys for one product. They all carry the hash tag the lock library gives the product's
 * lock key (`{stock:<id>}`), so the lock, the sold-out flag and the cache of a product live in one
 * Redis Cluster slot (with the fence counter the library keeps for that slot).
 */
export const productTag = (productId: string) => `{stock:${productId}}`;

export const productKeys = (prefix: string, productId: string) => {
  const tag = productTag(productId);
  return {
    soldOut: `${prefix}${tag}:sold-out`,
    view: `${prefix}${tag}:view`,
    rebuild: `cache-rebuild:${productId}`,
  };
};
