import { ApiProperty } from '@nestjs/swagger';
import { OrderView } from './order.view';

export class OrderPageView {
  @ApiProperty({ type: [OrderView] }) items!: OrderView[];
  @ApiProperty({ nullable: true, type: String, example: 'bzoxMDAx' }) nextCursor!: string | null;
}
