import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WaitingRoomSettings, WaitingRoomView } from '../sale-terms/waiting-room-settings';
import type { SaleCommitment } from '../sale-terms/sale-commitment';

/** The contract's Product. */
export class ProductView {
  @ApiProperty({ example: '42' }) id!: string;
  @ApiProperty({ example: 'PHONE-X-128' }) sku!: string;
  @ApiProperty({ example: 'Phone X 128 GB' }) name!: string;
  @ApiProperty({ example: 49900 }) priceCents!: number;
  @ApiProperty({ example: 1000, description: 'units still for sale' }) stock!: number;
  @ApiProperty({ example: 1 }) perUserLimit!: number;
  @ApiProperty({ example: '2026-11-21T12:00:00.000Z', nullable: true, type: String }) saleStartsAt!: string | null;
  @ApiProperty({ example: null, nullable: true, type: String }) saleEndsAt!: string | null;
  @ApiPropertyOptional({
    example: 8,
    description: 'present for segmented products: how many segment rows share the stock',
  })
  segments?: number;
  @ApiPropertyOptional({ type: WaitingRoomView, description: 'present for products sold through a waiting room' })
  waitingRoom?: WaitingRoomView;
  @ApiPropertyOptional({
    description:
      "present for products with a waiting room: what decides the queue's order, fixed at creation (before any join); " +
      'see GET /products/:id/queue/audit',
  })
  saleCommitment?: SaleCommitment;
}

export interface ProductRow {
  id: string;
  sku: string;
  name: string;
  price_cents: number;
  stock: number;
  per_user_limit: number;
  sale_starts_at: Date | null;
  sale_ends_at: Date | null;
  segments: number;
  waiting_room: WaitingRoomSettings | null;
  sale_commitment?: SaleCommitment | null;
}

export const PRODUCT_COLUMNS =
  'id, sku, name, price_cents, stock, per_user_limit, sale_starts_at, sale_ends_at, segments, waiting_room, sale_commitment';

/** The product as the API shows it: a segmented product's stock is the sum of its segments. */
export const PRODUCT_SELECT = `SELECT p.id, p.sku, p.name, p.price_cents, p.per_user_limit, p.sale_starts_at, p.sale_ends_at, p.segments, p.waiting_room, p.sale_commitment,
       CASE WHEN p.segments > 1 THEN (SELECT COALESCE(SUM(s.stock), 0)::int FROM product_segments s WHERE s.product_id = p.id) ELSE p.stock END AS stock
  FROM products p`;

export function toProductView(row: ProductRow): ProductView {
  return {
    id: String(row.id),
    sku: row.sku,
    name: row.name,
    priceCents: row.price_cents,
    stock: row.stock,
    perUserLimit: row.per_user_limit,
    saleStartsAt: row.sale_starts_at ? new Date(row.sale_starts_at).toISOString() : null,
    saleEndsAt: row.sale_ends_at ? new Date(row.sale_ends_at).toISOString() : null,
    ...(row.segments > 1 ? { segments: row.segments } : {}),
    ...(row.waiting_room ? { waitingRoom: row.waiting_room } : {}),
    ...(row.sale_commitment ? { saleCommitment: row.sale_commitment } : {}),
  };
}

/** What the purchase path needs to decide without SQL; never changes after creation. */
export interface SaleTerms {
  id: string;
  perUserLimit: number;
  saleStartsAtMs: number | null;
  saleEndsAtMs: number | null;
  segments: number;
  /** Null for a product sold without a waiting room (its purchase path never touches the queue). */
  waitingRoom: WaitingRoomSettings | null;
}

export const toSaleTerms = (view: ProductView): SaleTerms => ({
  id: view.id,
  perUserLimit: view.perUserLimit,
  saleStartsAtMs: view.saleStartsAt ? Date.parse(view.saleStartsAt) : null,
  saleEndsAtMs: view.saleEndsAt ? Date.parse(view.saleEndsAt) : null,
  segments: view.segments ?? 1,
  waitingRoom: view.waitingRoom ?? null,
});
