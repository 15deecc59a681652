import { stockLockKey } from '../stock/stock-keys';
import { MAX_BATCH } from '../purchase-batches/admission-rule';
import type { PurchaseBatches } from '../purchase-batches/purchase-batches.service';
import { ServiceTimeModel } from '../purchase-batches/service-time-model';

/** Admitted buyers may use this share of the measured purchase capacity, leaving room for bursts and retries. */
const CAPACITY_SHARE = 0.5;
const MAX_RATE = 5000;

/**
 * The automatic pace of a product without `admitPerSecond`: half of what its stock units sell per
 * second at full batches, by this instance's service-time model of each unit (the prior until
 * the unit has sold something here). Admitted buyers then meet the purchase deadline.
 */
export function automaticRate(
  batches: Pick<PurchaseBatches, 'serviceTime'> | undefined,
  productId: string,
  segments: number,
): number {
  const prior = new ServiceTimeModel();
  let perSecond = 0;
  for (let segment = 0; segment < segments; segment++) {
    const name = stockLockKey({ productId, segment: segments > 1 ? segment : null });
    const batchMs = batches?.serviceTime(name)?.batchMs(MAX_BATCH) ?? prior.batchMs(MAX_BATCH);
    perSecond += (MAX_BATCH * 1000) / Math.max(batchMs, 1);
  }
  return Math.max(1, Math.min(MAX_RATE, Math.floor(perSecond * CAPACITY_SHARE)));
}
