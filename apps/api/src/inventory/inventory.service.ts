import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { WithLock } from '@app/distributed-lock';
import { DataSource, EntityManager } from 'typeorm';
import { AppException, productNotFound } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { StaleFenceException } from '../common/errors/stale-fence.error';
import { ProductLock } from '../common/locking/product-lock';
import { CreateProductDto } from './dto/create-product.dto';
import { ProductCache } from './product-cache';
import { ProductCatalog } from './product-catalog.service';
import { PRODUCT_COLUMNS, ProductRow, ProductView, toProductView } from './product.view';
import { SoldOutFlags } from './sold-out-flags';
import { StockLedger } from './stock-ledger';

const UNIQUE_VIOLATION = '23505';

/** Admin seeding and the stock changes other modules make through it. */
@Injectable()
export class InventoryService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly productLock: ProductLock,
    private readonly ledger: StockLedger,
    private readonly flags: SoldOutFlags,
    private readonly cache: ProductCache,
    private readonly catalog: ProductCatalog,
  ) {}

  /** Creation is serialised per SKU, so two admins racing on one SKU get one product and one 409. */
  @WithLock('product-sku:<sku>')
  async create(dto: CreateProductDto): Promise<ProductView> {
    if (dto.saleStartsAt && dto.saleEndsAt && Date.parse(dto.saleEndsAt) <= Date.parse(dto.saleStartsAt)) {
      throw new AppException(ErrorCode.ValidationFailed, 'saleEndsAt must be after saleStartsAt');
    }
    let rows: ProductRow[];
    try {
      rows = await this.db.query(
        `INSERT INTO products (sku, name, price_cents, stock, supplied, per_user_limit, sale_starts_at, sale_ends_at)
         VALUES ($1, $2, $3, $4::int, $4::bigint, $5, $6, $7) RETURNING ${PRODUCT_COLUMNS}`,
        [dto.sku, dto.name, dto.priceCents, dto.stock, dto.perUserLimit ?? 1, dto.saleStartsAt ?? null, dto.saleEndsAt ?? null],
      );
    } catch (error) {
      if ((error as { driverError?: { code?: string } }).driverError?.code === UNIQUE_VIOLATION) {
        throw new AppException(ErrorCode.DuplicateSku, `a product with sku ${dto.sku} already exists`);
      }
      throw error;
    }
    const view = toProductView(rows[0]);
    await Promise.all([this.flags.sync(view.id, view.stock), this.cache.write(view.id, view)]);
    return view;
  }

  /** Sets the units still for sale, under the product's lock. */
  async setStock(productId: string, stock: number): Promise<ProductView> {
    return this.productLock.run(productId, async (fence) => {
      const outcome = await this.db.transaction((tx) => this.ledger.setAbsolute(tx, productId, stock, fence));
      if (outcome === 'not-found') throw productNotFound(productId);
      if (outcome === 'stale-fence') {
        if (fence !== null) await this.productLock.repairFenceIfReset(productId);
        throw new StaleFenceException(productId);
      }
      await this.afterStockChange(productId, stock);
      const view = await this.catalog.loadFromDatabase(productId);
      if (!view) throw productNotFound(productId);
      return view;
    });
  }

  /** Returns units inside the caller's transaction; call afterStockChange once it commits. */
  giveBack(tx: EntityManager, productId: string, quantity: number): Promise<number> {
    return this.ledger.giveBack(tx, productId, quantity);
  }

  /** Keeps the sold-out flag and the cached view in step with a committed stock figure. */
  async afterStockChange(productId: string, stock: number): Promise<void> {
    await Promise.all([this.flags.sync(productId, stock), this.cache.invalidate(productId)]);
  }
}
