import { Module } from '@nestjs/common';
import { ProductQueues } from './product-queues';

/**
 * The per-product purchase queues of this instance. Below orders and the waiting room: orders
 * queue purchases here, the waiting room reads the queues' measured pace to admit buyers.
 */
@Module({
  providers: [ProductQueues],
  exports: [ProductQueues],
})
export class ProductQueueModule {}
