import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DistributedLockService } from '@app/distributed-lock';
import { DataSource } from 'typeorm';
import type { RedisConnection } from '../common/redis/redis-client.factory';
import { REDIS_CLIENT } from '../common/redis/redis.constants';
import { RedisHold } from '../common/redis/redis-hold';
import { RedisKeyPrefix } from '../common/redis/redis-keys';
import { reportBackgroundFailure } from '../metrics/background-failures';
import { StockLedger } from '../stock/stock-ledger';
import { SoldOutFlags } from './sold-out-flags';
import { ProductIdRange } from './product-id-range';
import { PRODUCT_SELECT, ProductRow, ProductView, SaleTerms, toProductView, toSaleTerms } from './product.view';
import { productKeys, StockUnit } from '../stock/stock-keys';
import { KnownSaleTerms } from './known-sale-terms';
import { LocalProductViews } from './local-product-views';

const WAIT_FOR_REBUILD_MS = 300;

// ---- the cached view

/**
 * A cached read: `view` null means "no such product" (cached briefly so lookups of junk ids stay
 * cheap); `view` undefined means the product exists but changed since its view was cached.
 */
export type CachedProduct = { view: ProductView | null; fresh: boolean } | { view: undefined; fresh: false };

const FRESH_MS = 30_000;
const MISSING_FRESH_MS = 3_000;
// Kept past freshness so that readers can be served the stale value while one rebuilds.
const KEEP_S = 120;
// What a change leaves in place of the view: no view to serve, but proof that the product exists.
const CHANGED_ENTRY = JSON.stringify({ f: 0 });

/**
 * The product view cached in Redis. Readers of one product that arrive while its GET is in flight
 * share that GET: under a sale the storefront reads the hot product thousands of times a second,
 * and a Redis round trip per read was a third of a read's CPU. A joiner gets a value read at most
 * one round trip before it arrived, of a cache that is already allowed to be 30 s stale; a write or
 * an invalidation detaches the read in flight, so that nobody arriving after it joins an older GET
 * (this connection sends commands in order: a GET issued later runs after the invalidation).
 * While Redis is unreachable (the dependency-failure policy) the cache is skipped: reads miss and
 * Postgres answers; any other Redis failure is a bug and is thrown.
 */
@Injectable()
export class ProductCache {
  private readonly inFlight = new Map<string, Promise<CachedProduct | undefined>>();
  private readonly log = new Logger(ProductCache.name);
  private readonly readSkipped: (error: unknown) => null;
  private readonly writeSkipped: (error: unknown) => undefined;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisConnection,
    private readonly prefix: RedisKeyPrefix,
    hold: RedisHold,
  ) {
    this.readSkipped = hold.fallback({ log: this.log, what: 'product cache read' }, null);
    this.writeSkipped = hold.fallback({ log: this.log, what: 'product cache write' }, undefined);
  }

  read(productId: string): Promise<CachedProduct | undefined> {
    const pending = this.inFlight.get(productId);
    if (pending) return pending;
    const read = this.readOnce(productId).finally(() => {
      if (this.inFlight.get(productId) === read) this.inFlight.delete(productId);
    });
    this.inFlight.set(productId, read);
    return read;
  }

  private async readOnce(productId: string): Promise<CachedProduct | undefined> {
    const key = productKeys(this.prefix.value, productId).view;
    const raw = await this.redis.get(key).catch(this.readSkipped);
    if (!raw) return undefined;
    const entry = JSON.parse(raw) as { v?: ProductView | null; f: number };
    return entry.v === undefined ? { view: undefined, fresh: false } : { view: entry.v, fresh: entry.f > Date.now() };
  }

  async write(productId: string, view: ProductView | null): Promise<void> {
    this.inFlight.delete(productId);
    const entry = { v: view, f: Date.now() + (view ? FRESH_MS : MISSING_FRESH_MS) };
    const key = productKeys(this.prefix.value, productId).view;
    await this.redis.set(key, JSON.stringify(entry), 'EX', KEEP_S).catch(this.writeSkipped);
  }

  /**
   * Drops the view after a change, but not the key: the view a product's creator cached is how the
   * other instances learn of a new id before their ProductIdRange does, and with the key deleted
   * they answered "no such product" for up to ID_RANGE_RECHECK_MS after the product's first sale.
   */
  async invalidate(productId: string): Promise<void> {
    this.inFlight.delete(productId);
    const key = productKeys(this.prefix.value, productId).view;
    await this.redis.set(key, CHANGED_ENTRY, 'EX', KEEP_S).catch(this.writeSkipped);
  }
}

// ---- the catalog

/**
 * What every instance knows of a product without asking Postgres: its view, cached in Redis and
 * rebuilt by one reader at a time (under a lock; the others get the stale value when there is
 * one, or wait briefly for the rebuild); its sale terms, which never change after creation, so the
 * purchase path keeps them in process memory; and its sold-out flag, which with the cached view
 * follows every committed stock change (afterStockChange). While Redis is unreachable or slow,
 * views come from this process's own reads instead (LocalProductViews: at most a second old, one
 * query per product at a time), so that nobody gets a query per read for free.
 */
@Injectable()
export class ProductCatalog {
  private readonly log = new Logger(ProductCatalog.name);
  private readonly terms = new KnownSaleTerms();
  private readonly localViews = new LocalProductViews();
  private readonly loadView = (productId: string) => this.loadFromDatabase(productId);
  private readonly lockSkipped: (error: unknown) => 'no-redis';
  private readonly releaseSkipped: (error: unknown) => false;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly cache: ProductCache,
    private readonly flags: SoldOutFlags,
    private readonly ledger: StockLedger,
    private readonly locks: DistributedLockService,
    private readonly ids: ProductIdRange,
    private readonly hold: RedisHold,
  ) {
    const rebuildSkip = { log: this.log, what: 'product cache rebuild lock' };
    this.lockSkipped = hold.fallback(rebuildSkip, 'no-redis' as const);
    this.releaseSkipped = hold.fallback(rebuildSkip, false);
  }

  /** The product's view, or null when there is no such product. */
  findView(productId: string): Promise<ProductView | null> {
    return this.readThrough(productId);
  }

  /** The sale terms, or undefined for an unknown product; no Redis or SQL once known. */
  async saleTerms(productId: string): Promise<SaleTerms | undefined> {
    const known = this.terms.get(productId);
    if (known) return known;
    if (this.terms.isMissing(productId)) return undefined;
    const view = await this.readThrough(productId);
    if (!view) {
      this.terms.rememberMissing(productId);
      return undefined;
    }
    const terms = toSaleTerms(view);
    this.terms.remember(productId, terms);
    return terms;
  }

  /** Without I/O: the sale terms when this process already knows them. */
  knownTerms(productId: string): SaleTerms | undefined {
    return this.terms.get(productId);
  }

  async loadFromDatabase(productId: string): Promise<ProductView | null> {
    const rows: ProductRow[] = await this.db.query(`${PRODUCT_SELECT} WHERE p.id = $1`, [productId]);
    return rows.length ? toProductView(rows[0]) : null;
  }

  /** A new product: its flag and its cached view start from what was just inserted. */
  async afterCreate(view: ProductView): Promise<void> {
    this.ids.noteCreated(view.id);
    await Promise.all([this.flags.sync(view.id, view.stock), this.cache.write(view.id, view)]);
  }

  /**
   * Keeps the sold-out flag and the cached view in step with a committed stock figure. Best
   * effort: the change it follows is committed and its caller's answer must say so, so a failure
   * here is reported, never thrown. The flag and the cache then lapse on their own TTLs.
   */
  async afterStockChange(productId: string, stock: number, segmented = false): Promise<void> {
    this.localViews.forget(productId);
    try {
      await Promise.all([this.flags.sync(productId, stock, segmented), this.cache.invalidate(productId)]);
    } catch (error) {
      reportBackgroundFailure(this.log, 'stock-bookkeeping', `product ${productId}`, error);
    }
  }

  /**
   * The same after a change to one stock unit: a segment with units means the product has some;
   * an empty segment needs the other segments counted before the product is called sold out.
   */
  async afterUnitChange(unit: StockUnit, unitStock: number): Promise<void> {
    if (unit.segment === null || unitStock > 0)
      return this.afterStockChange(unit.productId, unitStock, unit.segment !== null);
    let total: number;
    try {
      total = await this.ledger.segmentedTotal(this.db, unit.productId);
    } catch (error) {
      return reportBackgroundFailure(this.log, 'stock-bookkeeping', `product ${unit.productId}`, error);
    }
    return this.afterStockChange(unit.productId, total, true);
  }

  private async readThrough(productId: string): Promise<ProductView | null> {
    if (this.hold.recentlyDown()) return this.readWithoutRedis(productId);
    const cached = await this.cache.read(productId);
    if (cached?.fresh) return cached.view;
    // This read found Redis unreachable or slow: nobody can coordinate a rebuild now.
    if (this.hold.recentlyDown()) return this.readWithoutRedis(productId);
    // Nothing cached: an id above every id handed out is answered here, with no query and no entry.
    if (!cached && !(await this.ids.mayExist(productId))) return null;
    const rebuilt = await this.rebuildOnce(productId);
    if (rebuilt !== undefined) return rebuilt;
    if (cached && cached.view !== undefined) return cached.view;
    return this.waitForRebuild(productId);
  }

  /** While Redis is sick: this process's own view, at most LOCAL_VIEW_MS old; an id above the range costs nothing. */
  private async readWithoutRedis(productId: string): Promise<ProductView | null> {
    if (!(await this.ids.mayExist(productId))) return null;
    return this.localViews.read(productId, this.loadView);
  }

  /** Rebuilds when this caller wins the rebuild lock; undefined when someone else is on it. */
  private async rebuildOnce(productId: string): Promise<ProductView | null | undefined> {
    // Without Redis nobody can coordinate the rebuild: this reader rebuilds (the cache write is skipped too).
    const lock = await this.locks
      .tryAcquire(productKeys('', productId).rebuild, { ttlMs: 2000 })
      .catch(this.lockSkipped);
    if (lock === null) return undefined;
    try {
      const view = await this.loadFromDatabase(productId);
      await this.cache.write(productId, view);
      return view;
    } finally {
      // A release Redis cannot take lapses on its 2 s lease.
      if (lock !== 'no-redis') await lock.release().catch(this.releaseSkipped);
    }
  }

  private async waitForRebuild(productId: string): Promise<ProductView | null> {
    const deadline = Date.now() + WAIT_FOR_REBUILD_MS;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      const cached = await this.cache.read(productId);
      if (cached && cached.view !== undefined) return cached.view;
    }
    return this.loadFromDatabase(productId);
  }
}

/** Whether these terms take purchases at `nowMs` (the waiting room's joins open earlier: isJoinable). */
export const isSaleOpen = (terms: SaleTerms, nowMs: number): boolean =>
  (terms.saleStartsAtMs === null || nowMs >= terms.saleStartsAtMs) &&
  (terms.saleEndsAtMs === null || nowMs < terms.saleEndsAtMs);
