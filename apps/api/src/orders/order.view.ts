import { ApiProperty } from '@nestjs/swagger';
import { ORDER_STATUSES, OrderStatus } from './order-status';

/** The contract's Order. */
export class OrderView {
  @ApiProperty({ example: '1001' }) id!: string;
  @ApiProperty({ example: '42' }) productId!: string;
  @ApiProperty({ example: 'u1' }) userId!: string;
  @ApiProperty({ example: 1 }) quantity!: number;
  @ApiProperty({ enum: ORDER_STATUSES, example: 'PENDING_PAYMENT' }) status!: OrderStatus;
  @ApiProperty({ example: '2026-11-21T12:00:00.000Z' }) createdAt!: string;
  @ApiProperty({ example: '2026-11-21T12:15:00.000Z' }) expiresAt!: string;
  @ApiProperty({ example: null, nullable: true, type: String }) paidAt!: string | null;
  @ApiProperty({
    example: 'p-3f0c9a52-6a5e-4c43-9d1e-0c7c8e0f6b1a',
    nullable: true,
    type: String,
    description:
      'the purchase that made it: its Idempotency-Key, or an id the API generated (null for orders older than purchase ids)',
  })
  purchaseId!: string | null;
}

export interface OrderRow {
  id: string;
  product_id: string;
  user_id: string;
  quantity: number;
  status: OrderStatus;
  idempotency_key: string | null;
  request_hash: string | null;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  segment: number | null;
}

export const ORDER_COLUMNS =
  'id, product_id, user_id, quantity, status, idempotency_key, request_hash, created_at, expires_at, paid_at, segment';

export function toOrderView(row: OrderRow): OrderView {
  return {
    id: String(row.id),
    productId: String(row.product_id),
    userId: row.user_id,
    quantity: row.quantity,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
    paidAt: row.paid_at ? new Date(row.paid_at).toISOString() : null,
    purchaseId: row.idempotency_key,
  };
}

/** The order as the purchase first answered it, for idempotent replays. */
export const asFirstAnswered = (row: OrderRow): OrderView => ({
  ...toOrderView(row),
  status: 'PENDING_PAYMENT',
  paidAt: null,
});
