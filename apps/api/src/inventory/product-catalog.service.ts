import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DistributedLockService } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
import { productNotFound } from '../common/errors/app.exception';
import { ProductCache } from './product-cache';
import { PRODUCT_SELECT, ProductRow, ProductView, SaleTerms, toProductView, toSaleTerms } from './product.view';
import { productKeys } from '../stock/stock-keys';

const WAIT_FOR_REBUILD_MS = 300;
const MAX_TERMS = 10_000;
const MISSING_TERMS_MS = 2_000;

/**
 * Product reads. The Redis cache is rebuilt by one reader at a time (under a lock); the others
 * get the stale value when there is one, or wait briefly for the rebuild. Sale terms never change
 * after creation, so the purchase path keeps them in process memory.
 */
@Injectable()
export class ProductCatalog {
  private readonly terms = new Map<string, SaleTerms | { missingUntil: number }>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cache: ProductCache,
    private readonly locks: DistributedLockService,
  ) {}

  async getView(productId: string): Promise<ProductView> {
    const view = await this.readThrough(productId);
    if (!view) throw productNotFound(productId);
    return view;
  }

  /** The sale terms, or undefined for an unknown product; no Redis or SQL once known. */
  async saleTerms(productId: string): Promise<SaleTerms | undefined> {
    const known = this.terms.get(productId);
    if (known && 'id' in known) return known;
    if (known && known.missingUntil > Date.now()) return undefined;
    const view = await this.readThrough(productId);
    if (this.terms.size >= MAX_TERMS) this.terms.clear();
    this.terms.set(productId, view ? toSaleTerms(view) : { missingUntil: Date.now() + MISSING_TERMS_MS });
    return view ? toSaleTerms(view) : undefined;
  }

  /** Without I/O: the sale terms when this process already knows them. */
  knownTerms(productId: string): SaleTerms | undefined {
    const known = this.terms.get(productId);
    return known && 'id' in known ? known : undefined;
  }

  async loadFromDatabase(productId: string): Promise<ProductView | null> {
    const rows: ProductRow[] = await this.db.query(`${PRODUCT_SELECT} WHERE p.id = $1`, [productId]);
    return rows.length ? toProductView(rows[0]) : null;
  }

  forget(productId: string): void {
    this.terms.delete(productId);
  }

  private async readThrough(productId: string): Promise<ProductView | null> {
    const cached = await this.cache.read(productId);
    if (cached?.fresh) return cached.view;
    const rebuilt = await this.rebuildOnce(productId);
    if (rebuilt !== undefined) return rebuilt;
    if (cached) return cached.view;
    return this.waitForRebuild(productId);
  }

  /** Rebuilds when this caller wins the rebuild lock; undefined when someone else is on it. */
  private async rebuildOnce(productId: string): Promise<ProductView | null | undefined> {
    const lock = await this.locks.tryAcquire(productKeys('', productId).rebuild, { ttlMs: 2000 }).catch(() => 'no-redis' as const);
    if (lock === null) return undefined;
    try {
      const view = await this.loadFromDatabase(productId);
      await this.cache.write(productId, view);
      return view;
    } finally {
      if (lock !== 'no-redis') await lock.release().catch(() => undefined);
    }
  }

  private async waitForRebuild(productId: string): Promise<ProductView | null> {
    const deadline = Date.now() + WAIT_FOR_REBUILD_MS;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      const cached = await this.cache.read(productId);
      if (cached) return cached.view;
    }
    return this.loadFromDatabase(productId);
  }
}

/** Whether the sale window of these terms is open at `nowMs` (the one place the window is judged). */
export const isSaleOpen = (terms: SaleTerms, nowMs: number): boolean =>
  (terms.saleStartsAtMs === null || nowMs >= terms.saleStartsAtMs) && (terms.saleEndsAtMs === null || nowMs < terms.saleEndsAtMs);
