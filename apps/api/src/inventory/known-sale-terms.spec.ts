import { KnownSaleTerms, MAX_MISSING_TERMS, MAX_TERMS, MISSING_TERMS_MS } from './known-sale-terms';
import type { SaleTerms } from './product.view';

const termsOf = (id: string) => ({ id }) as unknown as SaleTerms;

describe('KnownSaleTerms', () => {
  it('keeps the terms of a product, and an id that names nothing for MISSING_TERMS_MS', () => {
    const known = new KnownSaleTerms();
    known.remember('1', termsOf('1'));
    known.rememberMissing('2', 1000);
    expect(known.get('1')).toEqual(termsOf('1'));
    expect([known.isMissing('2', 1000 + MISSING_TERMS_MS - 1), known.isMissing('2', 1000 + MISSING_TERMS_MS)]).toEqual([
      true,
      false,
    ]);
  });

  it('lets no number of unknown ids push a product out: missing ids are bounded apart', () => {
    const known = new KnownSaleTerms();
    known.remember('1', termsOf('1'));
    for (let id = 0; id < 3 * MAX_MISSING_TERMS + 1; id++) known.rememberMissing(`junk-${id}`, 1000);
    expect(known.get('1')).toEqual(termsOf('1'));
    expect(known.size.missing).toBeLessThanOrEqual(MAX_MISSING_TERMS);
  });

  it('holds at most MAX_TERMS products, making room by dropping the longest kept', () => {
    const known = new KnownSaleTerms();
    for (let id = 1; id <= MAX_TERMS + 1; id++) known.remember(String(id), termsOf(String(id)));
    expect(known.size.terms).toBe(MAX_TERMS);
    expect(known.get('1')).toBeUndefined();
    expect(known.get('2')).toEqual(termsOf('2'));
    expect(known.get(String(MAX_TERMS + 1))).toEqual(termsOf(String(MAX_TERMS + 1)));
  });

  it('lets a product found replace its missing mark', () => {
    const known = new KnownSaleTerms();
    known.rememberMissing('3', 1000);
    known.remember('3', termsOf('3'));
    expect(known.isMissing('3', 1000)).toBe(false);
    expect(known.get('3')).toEqual(termsOf('3'));
  });
});
