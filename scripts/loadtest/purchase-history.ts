import type { OpRecord } from '../history/format';
import type { Response } from './driver';
import { purchaseRecord } from './driver';

/** Where an entry's purchase fields are, in the columns of a `PurchaseHistory`. */
type Row = number;

/**
 * A generator thread's history while its load runs: purchases kept as columns of numbers and the
 * strings their answers already hold, every other operation as its record, all in the order they
 * completed. Tens of thousands of purchase records built as objects during a sale are garbage the
 * collector has to copy while the sale runs; built by `ops()` afterwards they cost the sale nothing.
 * `ops()` gives exactly the records `HistoryLog.add(purchaseRecord(...))` would have held.
 */
export class PurchaseHistory {
  private readonly entries: (OpRecord | Row)[] = [];
  private readonly sender: number[] = [];
  private readonly invokeMs: number[] = [];
  private readonly completeMs: number[] = [];
  private readonly userId: string[] = [];
  private readonly key: string[] = [];
  /** The HTTP status, or -1 for a transport error (then `error` holds its code). */
  private readonly status: number[] = [];
  private readonly error: (string | undefined)[] = [];
  private readonly code: (string | undefined)[] = [];
  /** `true` for the common answer whose purchase id is its Idempotency-Key: no second string kept. */
  private readonly purchaseId: (string | boolean | undefined)[] = [];
  private readonly orderId: (string | undefined)[] = [];

  /** `senderPrefix` + a connection number names each purchase's sender (`w1.` + 7 → `w1.7`). */
  constructor(
    readonly productId: string,
    readonly quantity: number,
    private readonly senderPrefix: string,
  ) {}

  add(op: OpRecord): void {
    this.entries.push(op);
  }

  /** A purchase of this history's product and quantity, answered with `response`. */
  addPurchase(response: Response, connection: number, userId: string, key: string): void {
    const { sample, purchaseId } = response;
    this.entries.push(this.sender.length);
    this.sender.push(connection);
    this.invokeMs.push(response.invokeMs);
    this.completeMs.push(response.completeMs);
    this.userId.push(userId);
    this.key.push(key);
    this.status.push(sample.error !== undefined ? -1 : sample.status);
    this.error.push(sample.error);
    this.code.push(sample.code);
    this.purchaseId.push(purchaseId === key ? true : purchaseId);
    this.orderId.push(response.orderId);
  }

  /** Every operation as its history record, in the order they were added. */
  ops(): OpRecord[] {
    return this.entries.map((entry) => (typeof entry === 'number' ? this.purchaseAt(entry) : entry));
  }

  private purchaseAt(row: Row): OpRecord {
    const failed = this.status[row] < 0;
    const purchaseId = this.purchaseId[row];
    const response: Response = {
      sample: {
        status: failed ? 0 : this.status[row],
        ...(failed ? { error: this.error[row] } : {}),
        ...(this.code[row] !== undefined ? { code: this.code[row] } : {}),
        latencyMs: 0,
        finishedAt: this.completeMs[row],
      },
      invokeMs: this.invokeMs[row],
      completeMs: this.completeMs[row],
      purchaseId: purchaseId === true ? this.key[row] : (purchaseId as string | undefined),
      orderId: this.orderId[row],
    };
    return purchaseRecord(response, {
      process: `${this.senderPrefix}${this.sender[row]}`,
      productId: this.productId,
      userId: this.userId[row],
      quantity: this.quantity,
      key: this.key[row],
    });
  }
}
