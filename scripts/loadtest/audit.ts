import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, ContractProduct } from './api-client';
import { AuditSnapshot } from './invariants';

/**
 * The product and all its orders, read so that they belong together: the stock is read before
 * and after the orders and the read is repeated when it moved (an order expiring mid-read would
 * otherwise look like a conservation failure).
 */
export async function readSnapshot(
  api: ApiClient,
  productId: string,
  attempts = 5,
): Promise<AuditSnapshot & { product: ContractProduct }> {
  let last: AuditSnapshot & { product: ContractProduct } = { stock: NaN, orders: [], product: undefined as never };
  for (let i = 0; i < attempts; i++) {
    const before = await api.getProduct(productId);
    const orders = await api.listOrders(productId);
    const after = await api.getProduct(productId);
    last = { stock: after.stock, orders, product: after };
    if (before.stock === after.stock) return last;
    await sleep(200);
  }
  return last;
}
