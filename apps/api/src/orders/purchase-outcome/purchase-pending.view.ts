import { ApiProperty } from '@nestjs/swagger';

/** Seconds a buyer is asked to wait before asking again what became of a pending purchase. */
export const PENDING_RETRY_AFTER_S = 1;

/** The 202 answer: the purchase was sent to the database, and its outcome is not known yet. */
export class PurchasePendingView {
  @ApiProperty({ example: 202 }) statusCode!: number;
  @ApiProperty({ example: 'PURCHASE_PENDING' }) code!: string;
  @ApiProperty({ example: 'the outcome of this purchase is not known yet; ask GET /purchases/<purchaseId>' })
  message!: string;
  @ApiProperty({ example: 'p-3f0c9a52-6a5e-4c43-9d1e-0c7c8e0f6b1a' }) purchaseId!: string;
}

export const purchasePending = (purchaseId: string): PurchasePendingView => ({
  statusCode: 202,
  code: 'PURCHASE_PENDING',
  message: `the outcome of this purchase is not known yet; ask GET /purchases/${purchaseId}`,
  purchaseId,
});
