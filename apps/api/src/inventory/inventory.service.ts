import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DistributedLockService,
  encodeKeySegment,
  HeldLock,
  Lock,
  WithLock,
  type WithLockOptions,
} from '@app/distributed-lock';
import { DataSource, EntityManager } from 'typeorm';
import { AppException, productNotFound } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { StaleFenceException } from '../common/errors/stale-fence.error';
import { FenceRepair } from '../stock/fence-repair';
import { Fence, StockUnit, stockLockKeys } from '../stock/stock-keys';
import { CreateProductDto } from './dto/create-product.dto';
import { ProductCatalog } from './product-catalog.service';
import { PRODUCT_COLUMNS, ProductRow, ProductView, toProductView } from './product.view';
import { SetOutcome, StaleSegmentsError, StockLedger } from '../stock/stock-ledger';
import { stockSetAfterFailure } from '../stock/stock-read-back';
import { reportBackgroundFailure } from '../metrics/background-failures';
import { withConflictRetry } from '../database/statements';
import { toWaitingRoomSettings } from '../sale-terms/waiting-room-settings';
import { ConfigService } from '@nestjs/config';
import type { TypedConfigService } from '../config/app-config.module';
import type { SaleBeaconConfig } from '../config/sale-beacon-config';
import { appendAdminAction } from '../sale-terms/admin-action-chain';
import { createdSale } from './created-sale';

const UNIQUE_VIOLATION = '23505';

// No re-entry (no AsyncLocalStorage); every stock statement checks the fence, so Postgres has the
// last word, as with LOCK_FALLBACK=db.
const LOCK_OPTIONS: WithLockOptions = { reentrant: false, fenced: true };

/** An admin's new stock figure for a product with `segments` stock rows. */
interface StockChange {
  productId: string;
  stock: number;
  segments: number;
  /** A sale through a waiting room: the change joins its chain of admin actions, in the same transaction. */
  audited: boolean;
}

const waitingRoomColumn = (dto: CreateProductDto): string | null =>
  dto.waitingRoom ? JSON.stringify(toWaitingRoomSettings(dto.waitingRoom)) : null;

/** Admin seeding and the stock changes other modules make through it. */
@Injectable()
export class InventoryService {
  private readonly log = new Logger(InventoryService.name);

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly fenceRepair: FenceRepair,
    private readonly ledger: StockLedger,
    private readonly catalog: ProductCatalog,
    private readonly locks: DistributedLockService,
    @Inject(ConfigService) config: TypedConfigService,
  ) {
    this.beacon = config.get('saleBeacon', { infer: true });
  }

  private readonly beacon: SaleBeaconConfig;

  /** Creation is serialised per SKU, so two admins racing on one SKU get one product and one 409. */
  create(dto: CreateProductDto): Promise<ProductView> {
    return this.locks.using(`product-sku:${encodeKeySegment(dto.sku)}`, { reentrant: false }, () => this.insert(dto));
  }

  private async insert(dto: CreateProductDto): Promise<ProductView> {
    if (dto.saleStartsAt && dto.saleEndsAt && Date.parse(dto.saleEndsAt) <= Date.parse(dto.saleStartsAt)) {
      throw new AppException(ErrorCode.ValidationFailed, 'saleEndsAt must be after saleStartsAt');
    }
    const segments = dto.segments ?? 1;
    // A waiting room's seed is drawn with it, and committed to, before anyone can join (created-sale.ts).
    const sale = createdSale(dto, this.beacon, Date.now());
    let row: ProductRow;
    try {
      row = await this.db.transaction(async (tx) => {
        const rows: ProductRow[] = await tx.query(
          `INSERT INTO products (sku, name, price_cents, stock, supplied, per_user_limit, sale_starts_at, sale_ends_at, segments, waiting_room, waiting_room_seed, sale_commitment)
           VALUES ($1, $2, $3, $4::int, $5::bigint, $6, $7, $8, $9, $10::jsonb, $11::bytea, $12::jsonb) RETURNING ${PRODUCT_COLUMNS}`,
          [
            dto.sku,
            dto.name,
            dto.priceCents,
            segments > 1 ? 0 : dto.stock,
            dto.stock,
            dto.perUserLimit ?? 1,
            dto.saleStartsAt ?? null,
            dto.saleEndsAt ?? null,
            segments,
            waitingRoomColumn(dto),
            sale?.seed ?? null,
            sale ? JSON.stringify(sale.commitment) : null,
          ],
        );
        if (sale) await appendAdminAction(tx, String(rows[0].id), 'create', sale.terms, sale.commitment.hash);
        if (segments > 1) {
          await tx.query(
            `INSERT INTO product_segments (product_id, segment, stock)
             SELECT $1, g, $2::int / $3::int + CASE WHEN g < $2::int % $3::int THEN 1 ELSE 0 END FROM generate_series(0, $3::int - 1) AS g`,
            [rows[0].id, dto.stock, segments],
          );
        }
        return { ...rows[0], stock: dto.stock };
      });
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === UNIQUE_VIOLATION) {
        throw new AppException(ErrorCode.DuplicateSku, `a product with sku ${dto.sku} already exists`);
      }
      throw error;
    }
    const view = toProductView(row);
    await this.catalog.afterCreate(view);
    return view;
  }

  /** Sets the units still for sale, under the product's lock (all segment locks for a segmented product). */
  async setStock(productId: string, stock: number): Promise<ProductView> {
    const terms = await this.catalog.saleTerms(productId);
    if (!terms) throw productNotFound(productId);
    const change = { productId, stock, segments: terms.segments, audited: terms.waitingRoom !== null };
    const outcome = terms.segments > 1 ? await this.setSegmentedStock(change) : await this.setProductStock(change);
    if (outcome === 'not-found') throw productNotFound(productId);
    if (outcome === 'stale-fence') throw new StaleFenceException(productId);
    const view = await this.catalog.loadFromDatabase(productId);
    if (!view) throw productNotFound(productId);
    return view;
  }

  @WithLock('stock:<productId>', LOCK_OPTIONS)
  private async setProductStock(change: StockChange, @HeldLock() lock?: Lock): Promise<SetOutcome> {
    const { productId, stock } = change;
    const fence = lock ? lock.fence : null;
    const result = await withConflictRetry(() =>
      this.db.transaction(async (tx) => {
        const outcome = await this.ledger.setAbsolute(tx, productId, stock, fence);
        if (outcome === 'ok') await this.recordStockChange(tx, change);
        return outcome;
      }),
    ).catch((error: unknown) => stockSetAfterFailure(this.db, productId, false, stock, error));
    if (result === 'stale-fence' && fence !== null)
      await this.fenceRepair.repairFenceIfReset({ productId, segment: null }, lock);
    if (result === 'ok') await this.catalog.afterStockChange(productId, stock);
    return result;
  }

  /** Under every segment's lock at once (one multi-key lock, taken in canonical order). */
  @WithLock((change: StockChange) => stockLockKeys(change.productId, change.segments), LOCK_OPTIONS)
  private async setSegmentedStock(change: StockChange, @HeldLock() lock?: Lock): Promise<SetOutcome> {
    const { productId, stock, segments } = change;
    const fence = lock ? lock.fence : null;
    try {
      await withConflictRetry(() =>
        this.db.transaction(async (tx) => {
          await this.ledger.setSegmented(tx, productId, stock, segments, fence);
          await this.recordStockChange(tx, change);
        }),
      );
    } catch (error) {
      if (error instanceof StaleSegmentsError) return 'stale-fence';
      await stockSetAfterFailure(this.db, productId, true, stock, error);
    }
    await this.catalog.afterStockChange(productId, stock);
    return 'ok';
  }

  private async recordStockChange(tx: EntityManager, change: StockChange): Promise<void> {
    if (change.audited) await appendAdminAction(tx, change.productId, 'set-stock', { stock: change.stock });
  }

  /**
   * Returns units inside the caller's transaction, fenced like every stock write (a newer fence on
   * the row: StaleFenceException, and the transaction fails whole); call
   * ProductCatalog.afterUnitChange once it commits, or repairAfterStaleFence once it failed.
   */
  giveBack(tx: EntityManager, unit: StockUnit, quantity: number, fence: Fence): Promise<number> {
    return this.ledger.giveBack(tx, unit, quantity, fence);
  }

  /**
   * After a give-back refused for its fence while our lease still holds: the fence counter
   * restarted below the row's (Redis lost it), so lift it past the row's and the caller's retry is
   * accepted. A truly stale holder changes nothing. Never throws: the refusal is what the caller answers.
   */
  async repairAfterStaleFence(unit: StockUnit, lock: Lock | undefined, error: unknown): Promise<void> {
    if (!(error instanceof StaleFenceException)) return;
    await this.fenceRepair
      .repairFenceIfReset(unit, lock)
      .catch((failure: unknown) =>
        reportBackgroundFailure(this.log, 'fence-repair', `product ${unit.productId}`, failure),
      );
  }
}
