// README:begin
import { Injectable } from '@nestjs/common';
import { CurrentLock, WithLock } from '@flash-sale/distributed-lock';
import { StockTable } from './stock-table.js';

@Injectable()
export class Reservations {
  constructor(
    private readonly stock: StockTable,
    private readonly current: CurrentLock,
  ) {}

  @WithLock('stock:<productId>', { waitMs: 2000 })
  async reserve(input: { productId: string; quantity: number }): Promise<boolean> {
    return this.stock.take(input.productId, input.quantity, this.current.fence);
  }
}
// README:end
