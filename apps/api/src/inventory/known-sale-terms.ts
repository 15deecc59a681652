import type { SaleTerms } from './product.view';

/** Products whose sale terms are kept; past this the longest kept is dropped. */
export const MAX_TERMS = 10_000;
/** Ids found naming nothing that are remembered; past this they are all forgotten. */
export const MAX_MISSING_TERMS = 10_000;
/** How long an id is remembered as naming nothing (a product may be created under it meanwhile). */
export const MISSING_TERMS_MS = 2_000;

/**
 * The sale terms this process knows (they never change after creation, so the purchase path
 * keeps them and asks nothing again), and the ids it found naming nothing, in two maps bounded
 * apart: a flood of unknown ids fills and clears only the second, so it can never push a
 * product's terms out, and its next purchase still costs no lookup. Only products that exist
 * enter the first; when it is full the longest kept makes room (a map keeps insertion order).
 */
export class KnownSaleTerms {
  private readonly terms = new Map<string, SaleTerms>();
  private readonly missingUntil = new Map<string, number>();

  get(productId: string): SaleTerms | undefined {
    return this.terms.get(productId);
  }

  /** Whether `productId` was found naming nothing within the last MISSING_TERMS_MS. */
  isMissing(productId: string, now = Date.now()): boolean {
    const until = this.missingUntil.get(productId);
    return until !== undefined && until > now;
  }

  remember(productId: string, terms: SaleTerms): void {
    this.missingUntil.delete(productId);
    if (this.terms.size >= MAX_TERMS && !this.terms.has(productId)) this.dropOldest();
    this.terms.set(productId, terms);
  }

  rememberMissing(productId: string, now = Date.now()): void {
    if (this.missingUntil.size >= MAX_MISSING_TERMS) this.missingUntil.clear();
    this.missingUntil.set(productId, now + MISSING_TERMS_MS);
  }

  /** How many products and missing ids are held (what memory holds). */
  get size(): { terms: number; missing: number } {
    return { terms: this.terms.size, missing: this.missingUntil.size };
  }

  private dropOldest(): void {
    const oldest = this.terms.keys().next();
    if (!oldest.done) this.terms.delete(oldest.value);
  }
}
