import type { ProductView } from './product.view';

/** How old a view this process read from Postgres may be when it is served (the bound on staleness). */
export const LOCAL_VIEW_MS = 1000;
/** Products whose views are kept; only products that exist take a place. */
export const MAX_LOCAL_VIEWS = 10_000;
/** Ids found naming nothing that are remembered, apart from the products (see `missing`). */
export const MAX_LOCAL_MISSING = 1_000;

type Load = (productId: string) => Promise<ProductView | null>;

/**
 * Product views read from Postgres by this process, served for LOCAL_VIEW_MS: the catalog's view
 * while Redis (where views are cached and rebuilds coordinated) is unreachable or slow, so that a
 * flood of reads of one product costs one query per product per second on each instance instead
 * of one per read. Readers of a product that arrive while its read is in flight share it.
 *
 * Bounded: only products that exist take one of MAX_LOCAL_VIEWS places, and when those are full
 * the lapsed ones make room (a view outlives LOCAL_VIEW_MS for nothing). Ids that name nothing are
 * remembered in a map of their own, cleared when full, so junk ids can neither fill the views nor
 * push a product out of them.
 */
export class LocalProductViews {
  private readonly views = new Map<string, { view: ProductView; readAt: number }>();
  private readonly missing = new Map<string, number>();
  private readonly reading = new Map<string, Promise<ProductView | null>>();

  /** The product's view at most LOCAL_VIEW_MS old, read through `load` when this process has none. */
  read(productId: string, load: Load, now = Date.now()): Promise<ProductView | null> {
    const kept = this.views.get(productId);
    if (kept && now - kept.readAt < LOCAL_VIEW_MS) return Promise.resolve(kept.view);
    const missingAt = this.missing.get(productId);
    if (missingAt !== undefined && now - missingAt < LOCAL_VIEW_MS) return Promise.resolve(null);
    return this.readOnce(productId, load, now);
  }

  /**
   * Drops what this process knows of a product after it changed it (a committed stock change), and
   * detaches a read in flight, which may have read the product before the change: a reader here
   * never sees this instance's own change undone.
   */
  forget(productId: string): void {
    this.views.delete(productId);
    this.missing.delete(productId);
    this.reading.delete(productId);
  }

  /** How many views and missing ids are held (what memory holds). */
  get size(): { views: number; missing: number } {
    return { views: this.views.size, missing: this.missing.size };
  }

  private readOnce(productId: string, load: Load, now: number): Promise<ProductView | null> {
    const pending = this.reading.get(productId);
    if (pending) return pending;
    const read: Promise<ProductView | null> = load(productId).then((view) => {
      if (this.reading.get(productId) === read) this.keep(productId, view, now);
      return view;
    });
    // Settled either way: a failed read is not kept, and the next reader asks again.
    const forget = () => this.reading.get(productId) === read && this.reading.delete(productId);
    read.then(forget, forget);
    this.reading.set(productId, read);
    return read;
  }

  /** Keeps what a read found, dated from when it started: its age bounds how stale it may be. */
  private keep(productId: string, view: ProductView | null, readAt: number): void {
    if (view === null) {
      if (this.missing.size >= MAX_LOCAL_MISSING) this.missing.clear();
      this.missing.set(productId, readAt);
      return;
    }
    this.missing.delete(productId);
    if (this.views.size >= MAX_LOCAL_VIEWS && !this.views.has(productId)) this.dropLapsed(readAt);
    if (this.views.size < MAX_LOCAL_VIEWS || this.views.has(productId)) this.views.set(productId, { view, readAt });
  }

  private dropLapsed(now: number): void {
    for (const [id, { readAt }] of this.views) if (now - readAt >= LOCAL_VIEW_MS) this.views.delete(id);
  }
}
