import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { HISTORY_FORMAT, HistoryProduct, MetaRecord, OpRecord } from './format';

/** Collects a history in memory (an operation is recorded when it completes) and writes it as JSON lines. */
export class HistoryLog {
  readonly ops: OpRecord[] = [];
  readonly meta: MetaRecord;

  constructor(writer: string, products: HistoryProduct[] = []) {
    this.meta = { op: 'meta', format: HISTORY_FORMAT, writer, startedAtMs: Date.now(), products: [...products] };
  }

  addProduct(product: HistoryProduct): void {
    this.meta.products.push({ ...product, productId: String(product.productId) });
  }

  add(op: OpRecord): void {
    this.ops.push(op);
  }

  toJsonl(): string {
    const lines = [JSON.stringify(this.meta)];
    for (const op of this.ops) lines.push(JSON.stringify(op));
    return `${lines.join('\n')}\n`;
  }

  save(path: string): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, this.toJsonl());
  }
}
