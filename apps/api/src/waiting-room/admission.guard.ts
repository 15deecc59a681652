import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { dependencyUnavailable } from '../common/errors/app.exception';
import { isPositiveId } from '../common/positive-id';
import { AuthUser } from '../auth/auth.types';
import { ProductCatalog } from '../inventory/product-catalog.service';
import { QueueStore } from './queue-store';
import { TicketSigner } from './ticket-signer';
import { notAdmitted } from './waiting-room-errors';

/** Set on a purchase request that passed with an admission; PurchaseReceipts reads it. */
export interface AdmittedRequest {
  waitingRoomAdmission?: { productId: string; place: number };
}

type PurchaseRequest = { params: { id?: string }; headers: Record<string, unknown>; user: AuthUser } & AdmittedRequest;

/**
 * Purchases of a product sold through a waiting room need a valid `Admission` header: signed
 * by us, for this user and product, unexpired, and still good in Redis, where it is taken for
 * the purchase (PurchaseReceipts settles it when the answer goes out). Other products
 * pass at once: their terms are in process memory after the first purchase, so this adds no
 * Redis or SQL to their path.
 */
@Injectable()
export class WaitingRoomAdmissionGuard implements CanActivate {
  constructor(
    private readonly catalog: ProductCatalog,
    private readonly store: QueueStore,
    private readonly signer: TicketSigner,
  ) {}

  /** Synchronous for a product whose terms this process knows to have no waiting room: no promise on that path. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<PurchaseRequest>();
    const productId = request.params.id;
    if (!isPositiveId(productId)) return true; // the route's pipe answers 400
    const known = this.catalog.knownTerms(productId);
    if (known && !known.waitingRoom) return true;
    return this.check(request, productId);
  }

  private async check(request: PurchaseRequest, productId: string): Promise<boolean> {
    const terms = this.catalog.knownTerms(productId) ?? (await this.catalog.saleTerms(productId));
    if (!terms?.waitingRoom) return true;
    const claims = this.signer.readAdmission(request.headers.admission);
    if (!claims) throw notAdmitted('send the Admission your admitted ticket carries');
    if (claims.productId !== productId || claims.userTag !== this.signer.userTag(request.user.id)) throw notAdmitted('this Admission is for another user or product');
    const now = Date.now();
    if (claims.expiresAtMs <= now) throw notAdmitted('this Admission has expired');
    let holds: boolean;
    try {
      holds = await this.store.claim(productId, claims.place, claims.epoch, now);
    } catch (error) {
      throw Object.assign(dependencyUnavailable('redis'), { cause: error });
    }
    if (!holds) throw notAdmitted('this Admission is no longer outstanding');
    request.waitingRoomAdmission = { productId, place: claims.place };
    return true;
  }
}
