// A stand-in for the examples' database: one row per product, refusing a stale fence as the SQL
// `WHERE ... AND lock_fence <= $fence` of the README does.
export class StockTable {
  private readonly rows = new Map<string, { stock: number; fence: number }>();

  constructor(initial: Record<string, number>) {
    for (const [id, stock] of Object.entries(initial)) this.rows.set(id, { stock, fence: 0 });
  }

  /** Takes `quantity` units when enough are left and no newer holder has written; true if taken. */
  async take(productId: string, quantity: number, fence: number): Promise<boolean> {
    const row = this.rows.get(productId);
    if (!row || row.stock < quantity || row.fence > fence) return false;
    row.stock -= quantity;
    row.fence = fence;
    return true;
  }

  stockOf(productId: string): number {
    return this.rows.get(productId)?.stock ?? 0;
  }
}
