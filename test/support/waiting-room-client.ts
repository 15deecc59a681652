import { Api, ApiResponse, CreateProductInput, Product, Send, sleep } from './api-client';
import { adminAuth, auth } from './tokens';

/** What the contract says a ticket status is. */
export interface TicketStatus {
  ticket: string;
  ticketId: string;
  state: 'WAITING' | 'ADMITTED' | 'SOLD_OUT' | 'EXPIRED' | 'BOUGHT';
  position: number;
  etaS: number;
  pollAfterMs: number;
  admission?: string;
  admissionExpiresAt?: string;
}

export interface QueueSummary {
  waiting: number;
  admitted: number;
  soldOut: boolean;
  seedCommitment: string | null;
  seed: string | null;
}

export interface WaitingRoomInput {
  admitPerSecond?: number;
  admissionTtlS?: number;
  preQueueS?: number;
}

/** The waiting room's routes, as a storefront calls them. */
export class WaitingRoomClient {
  readonly api: Api;

  constructor(readonly send: Send) {
    this.api = new Api(send);
  }

  async createProduct(input: CreateProductInput & { waitingRoom?: WaitingRoomInput } = {}): Promise<Product & { waitingRoom?: Required<WaitingRoomInput> }> {
    const res = await this.api.createProductRaw(input as CreateProductInput, adminAuth());
    if (res.status !== 201) throw new Error(`createProduct: ${res.status} ${res.raw}`);
    return res.body;
  }

  join(productId: string, user: string): Promise<ApiResponse<TicketStatus>> {
    return this.send({ method: 'POST', url: `/products/${productId}/queue`, headers: auth(user) });
  }

  async joined(productId: string, user: string): Promise<TicketStatus> {
    const res = await this.join(productId, user);
    if (res.status !== 200) throw new Error(`join: ${res.status} ${res.raw}`);
    return res.body;
  }

  poll(productId: string, ticket: string): Promise<ApiResponse<TicketStatus>> {
    return this.send({ method: 'GET', url: `/products/${productId}/queue/${encodeURIComponent(ticket)}` });
  }

  async status(productId: string, ticket: string): Promise<TicketStatus> {
    const res = await this.poll(productId, ticket);
    if (res.status !== 200) throw new Error(`poll: ${res.status} ${res.raw}`);
    return res.body;
  }

  async summary(productId: string): Promise<QueueSummary> {
    const res = await this.send({ method: 'GET', url: `/products/${productId}/queue` });
    if (res.status !== 200) throw new Error(`summary: ${res.status} ${res.raw}`);
    return res.body;
  }

  purchase(productId: string, user: string, admission?: string, quantity = 1): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...auth(user) };
    if (admission !== undefined) headers.admission = admission;
    return this.send({ method: 'POST', url: `/products/${productId}/purchase`, headers, payload: { quantity } });
  }

  /** Polls until the ticket is in one of `states`; fails after timeoutMs. */
  async until(productId: string, ticket: string, states: TicketStatus['state'][], timeoutMs = 10_000): Promise<TicketStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.status(productId, ticket);
      if (states.includes(status.state)) return status;
      if (Date.now() > deadline) throw new Error(`ticket ${status.ticketId} stayed ${status.state}, wanted ${states.join('/')}`);
      // Within the ticket's poll budget (RATE_LIMIT_PER_SECOND, 20 by default).
      await sleep(60);
    }
  }
}

/** Waits until `check` answers true; fails after timeoutMs. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
