import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { OrderView } from '../order.view';

export const PURCHASE_STATES = ['PENDING', 'CREATED', 'REFUSED'] as const;
export type PurchaseState = (typeof PURCHASE_STATES)[number];

/** What became of one buyer's purchase. */
export class PurchaseOutcomeView {
  @ApiProperty({ example: 'p-3f0c9a52-6a5e-4c43-9d1e-0c7c8e0f6b1a' }) purchaseId!: string;
  @ApiProperty({
    enum: PURCHASE_STATES,
    example: 'CREATED',
    description: 'PENDING: not known yet; CREATED: the order exists; REFUSED: nothing was done, and nothing will be',
  })
  state!: PurchaseState;
  @ApiPropertyOptional({ type: OrderView, description: 'with CREATED' }) order?: OrderView;
  @ApiPropertyOptional({
    example: 'DEPENDENCY_UNAVAILABLE',
    description: 'with REFUSED: the contract code of the refusal',
  })
  code?: string;
}

/** One buyer's purchase among those sharing an id (a purchase id is unique per buyer only). */
export class PurchaseMatchView extends PurchaseOutcomeView {
  @ApiProperty({ example: 'u1' }) userId!: string;
}

/** GET /purchases/:purchaseId: what became of a purchase. */
export class PurchaseStatusView extends PurchaseOutcomeView {
  @ApiPropertyOptional({
    type: [PurchaseMatchView],
    description:
      "only when an admin names no buyer: every buyer's purchase with this id, oldest order first, then those still pending (at most 100); the fields above are the first's",
  })
  matches?: PurchaseMatchView[];
}
