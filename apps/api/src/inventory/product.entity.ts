import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('products')
export class ProductEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  sku!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ name: 'price_cents', type: 'integer' })
  priceCents!: number;

  @Column({ type: 'integer' })
  stock!: number;

  /** Initial stock plus every admin adjustment: conservation says supplied = stock + live orders. */
  @Column({ type: 'bigint' })
  supplied!: string;

  @Column({ name: 'per_user_limit', type: 'integer' })
  perUserLimit!: number;

  @Column({ name: 'sale_starts_at', type: 'timestamptz', nullable: true })
  saleStartsAt!: Date | null;

  @Column({ name: 'sale_ends_at', type: 'timestamptz', nullable: true })
  saleEndsAt!: Date | null;

  /** `{ admitPerSecond, admissionTtlS, preQueueS }` for a product sold through a waiting room; null otherwise. */
  @Column({ name: 'waiting_room', type: 'jsonb', nullable: true })
  waitingRoom!: { admitPerSecond: number | null; admissionTtlS: number; preQueueS: number } | null;

  @Column({ name: 'lock_fence', type: 'bigint' })
  lockFence!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
