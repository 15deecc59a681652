/** The few contract calls the tool makes outside the load itself: product set-up and the final audit. */
import { isRetryableStatus, parseRetryAfter, retryDelayMs } from './retry-policy';

export interface ContractProduct {
  id: string;
  sku: string;
  stock: number;
  perUserLimit: number;
  saleStartsAt?: string | null;
  waitingRoom?: {
    admitPerSecond?: number;
    admissionTtlS: number;
    preQueueS: number;
    joinWork?: { squarings?: number } | null;
    joinsPerAddress?: number | null;
  };
}

export interface ContractOrder {
  id: string;
  productId: string;
  userId: string;
  quantity: number;
  status: 'PENDING_PAYMENT' | 'PAID' | 'CANCELLED' | 'EXPIRED';
  createdAt?: string;
  expiresAt?: string;
  paidAt?: string | null;
  /** The purchase that made it (its Idempotency-Key or the id the API generated). */
  purchaseId?: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The refusal's Retry-After, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const MAX_ORDER_PAGES = 10_000;
/**
 * The longest one call waits out the server's 429s and 503s in all: a production instance budgets
 * an admin's order listing like anyone's, and a 100,000-order audit is 200 pages.
 */
export const DEFAULT_REFUSAL_BUDGET_MS = 60_000;

export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly adminToken: string,
    private readonly timeoutMs = 15_000,
    private readonly refusalBudgetMs = DEFAULT_REFUSAL_BUDGET_MS,
    private readonly sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  ) {}

  createProduct(body: {
    sku: string;
    name: string;
    priceCents: number;
    stock: number;
    perUserLimit: number;
    saleStartsAt?: string;
    waitingRoom?: {
      admitPerSecond?: number;
      admissionTtlS?: number;
      preQueueS?: number;
      joinWork?: { squarings: number };
      joinsPerAddress?: number;
    };
  }): Promise<ContractProduct> {
    return this.call<ContractProduct>('POST', '/admin/products', body);
  }

  getProduct(id: string): Promise<ContractProduct> {
    return this.call<ContractProduct>('GET', `/products/${encodeURIComponent(id)}`);
  }

  /** The public queue summary: `{ waiting, admitted, soldOut, seedCommitment, seed }`. */
  queueSummary(productId: string): Promise<{ seed: string | null; seedCommitment: string }> {
    return this.call('GET', `/products/${encodeURIComponent(productId)}/queue`);
  }

  /** Every order of the product, following `nextCursor` (admin sees all users' orders). */
  async listOrders(productId: string): Promise<ContractOrder[]> {
    const orders: ContractOrder[] = [];
    const seenCursors = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < MAX_ORDER_PAGES; page++) {
      const query = new URLSearchParams({ productId, limit: '500' });
      if (cursor) query.set('cursor', cursor);
      const body = await this.call<{ items: ContractOrder[]; nextCursor: string | null }>('GET', `/orders?${query}`);
      orders.push(...body.items);
      cursor = body.nextCursor ?? null;
      if (!cursor || body.items.length === 0) return orders;
      if (seenCursors.has(cursor))
        throw new Error(`GET /orders returned the cursor ${cursor} twice; pagination would loop`);
      seenCursors.add(cursor);
    }
    throw new Error(`GET /orders: more than ${MAX_ORDER_PAGES} pages`);
  }

  /**
   * One contract call, honouring the server: a 429 or 503 (which did nothing, by the contract) is
   * sent again after its Retry-After (plus up to 20% jitter; a backoff without one) until
   * refusalBudgetMs of waiting is spent, then the last refusal is thrown.
   */
  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let waitedMs = 0;
    for (let retryIndex = 0; ; retryIndex++) {
      try {
        return await this.callOnce<T>(method, path, body);
      } catch (error) {
        if (!(error instanceof ApiError) || !isRetryableStatus(error.status)) throw error;
        const waitMs = Math.max(error.retryAfterMs ?? 0, retryDelayMs(error.retryAfterMs, retryIndex, 30_000));
        if (waitedMs + waitMs > this.refusalBudgetMs) throw error;
        waitedMs += waitMs;
        await this.sleep(waitMs);
      }
    }
  }

  private async callOnce<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const err = error as { name?: string; cause?: { code?: string; message?: string } };
      const why =
        err.name === 'TimeoutError'
          ? `no answer in ${this.timeoutMs} ms`
          : (err.cause?.code ?? err.cause?.message ?? String(error));
      throw new ApiError(0, 'UNREACHABLE', `${method} ${this.baseUrl}${path} failed: ${why}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const error = (parsed ?? {}) as { code?: string; message?: string };
      throw new ApiError(
        response.status,
        error.code ?? 'UNKNOWN',
        `${method} ${path} → ${response.status} ${error.code ?? ''} ${error.message ?? text.slice(0, 200)}`.trim(),
        parseRetryAfter(response.headers.get('retry-after')),
      );
    }
    if (parsed === undefined)
      throw new ApiError(
        response.status,
        'NOT_JSON',
        `${method} ${path} → ${response.status} with a body that is not JSON`,
      );
    return parsed as T;
  }
}
