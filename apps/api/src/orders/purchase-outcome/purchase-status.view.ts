import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OrderView } from '../order.view';

export const PURCHASE_STATES = ['PENDING', 'CREATED', 'REFUSED'] as const;
export type PurchaseState = (typeof PURCHASE_STATES)[number];

/** GET /purchases/:purchaseId: what became of a purchase. */
export class PurchaseStatusView {
  @ApiProperty({ example: 'p-3f0c9a52-6a5e-4c43-9d1e-0c7c8e0f6b1a' }) purchaseId!: string;
  @ApiProperty({ enum: PURCHASE_STATES, example: 'CREATED', description: 'PENDING: not known yet; CREATED: the order exists; REFUSED: nothing was done, and nothing will be' })
  state!: PurchaseState;
  @ApiPropertyOptional({ type: OrderView, description: 'with CREATED' }) order?: OrderView;
  @ApiPropertyOptional({ example: 'DEPENDENCY_UNAVAILABLE', description: 'with REFUSED: the contract code of the refusal' }) code?: string;
}
