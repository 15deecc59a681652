import { Injectable } from '@nestjs/common';
import { productNotFound } from '../../common/errors/app.exception';
import { isSaleOpen, SaleTerms } from '../../inventory/product.view';
import { SoldOutFlags } from '../../inventory/sold-out-flags';
import { perUserLimit, saleNotActive, soldOut } from '../purchase-errors';

/**
 * The refusals a purchase can get without a lock or SQL, decided in one place: an unknown
 * product, a closed sale window, more units than a customer may have, and sold out (the Redis
 * flag, or this process having seen it a moment ago). The HTTP shortcuts, the rate-limit guard
 * and the purchase service all ask here. Overload is admission's question (PurchaseAdmission).
 */
@Injectable()
export class EarlyRefusals {
  constructor(private readonly flags: SoldOutFlags) {}

  /** Without I/O: whether this process saw the product sold out a moment ago. */
  knownSoldOut(productId: string): boolean {
    return this.flags.knownSoldOut(productId);
  }

  /** The refusal a purchase gets before it is queued, or undefined when it may go ahead. */
  async beforeQueue(productId: string, quantity: number, terms: SaleTerms | undefined): Promise<Error | undefined> {
    if (!terms) return productNotFound(productId);
    if (!isSaleOpen(terms, Date.now())) return saleNotActive();
    if (quantity > terms.perUserLimit) return perUserLimit(terms.perUserLimit);
    if (await this.flags.isSoldOut(productId)) return soldOut(productId);
    return undefined;
  }
}
