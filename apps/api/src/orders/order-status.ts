/** An order's states, as the `orders.status` column holds them (CONTRACT: PENDING_PAYMENT -> PAID | CANCELLED | EXPIRED). */
export const ORDER_STATUSES = ['PENDING_PAYMENT', 'PAID', 'CANCELLED', 'EXPIRED'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
