import { ProductEntity } from '../inventory/product.entity';
import { OrderEntity } from '../orders/order.entity';

export const ENTITIES = [ProductEntity, OrderEntity];
