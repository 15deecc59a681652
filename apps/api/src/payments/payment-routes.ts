import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { PaymentsConfig } from '../config/payments-config';

/** Route config (Nest's @RouteConfig) read by installPaymentRoutes. */
export interface PaymentRouteConfig {
  /** Keep the body's bytes as received in `request.rawBody` (a signature is over them). */
  rawBody?: boolean;
  /** The route exists only when this setting is on; otherwise it answers like an unknown route. */
  requires?: 'PAYMENTS_DIRECT' | 'PAYMENT_WEBHOOK_SECRET';
  /** Spend the client address's webhook budget before the body is read (WebhookAddressLimit). */
  addressBudget?: boolean;
}

/** A per-address budget: resolves when the address may go on, throws 429 RATE_LIMITED when it may not. */
export interface AddressBudget {
  spend(address: string): Promise<void>;
}

export type RawBodyRequest = FastifyRequest & { rawBody?: Buffer };

type Hook = (...args: never[]) => unknown;
const append = <T extends Hook>(existing: T | T[] | undefined, hook: T): T[] => [
  ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
  hook,
];

/**
 * Copies the body's chunks as they flow to the JSON parser, which goes on enforcing the body
 * limit and the content length; the copy is complete when the parser sees the end.
 */
function captureRawBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, stream?: NodeJS.ReadableStream) => void,
): void {
  const chunks: Buffer[] = [];
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      chunks.push(chunk);
      next(null, chunk);
    },
    flush(next) {
      (request as RawBodyRequest).rawBody = Buffer.concat(chunks);
      next();
    },
  });
  payload.on('error', (error: Error) => tap.destroy(error));
  done(null, payload.pipe(tap));
}

function answerNotFound(_request: FastifyRequest, reply: FastifyReply, _done: () => void): void {
  reply.callNotFound();
}

/**
 * An onRequest hook spending `budget` for the client's address: before the body is read, parsed or
 * hashed, so a refused request costs a counter hit. The 429 goes to Nest's exception filter.
 */
const spendingAddressBudget =
  (budget: AddressBudget) =>
  (request: FastifyRequest): Promise<void> =>
    budget.spend(request.ip);

/**
 * Per-route Fastify hooks for the payment routes, added as Nest registers them (call before
 * app.init()): the raw body only where a signature needs it, so every other route keeps the
 * plain JSON parser at no extra cost; a disabled route answered by the not-found handler
 * before guards run, exactly as a route that does not exist; and the address budget, after that.
 */
export function installPaymentRoutes(fastify: FastifyInstance, payments: PaymentsConfig, budget: AddressBudget): void {
  const enabled = { PAYMENTS_DIRECT: payments.direct, PAYMENT_WEBHOOK_SECRET: payments.webhookSecret !== undefined };
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const config = (route.config ?? {}) as PaymentRouteConfig;
    if (config.requires && !enabled[config.requires])
      route.onRequest = append(
        route.onRequest as Hook | Hook[] | undefined,
        answerNotFound,
      ) as RouteOptions['onRequest'];
    if (config.addressBudget)
      route.onRequest = append(
        route.onRequest as Hook | Hook[] | undefined,
        spendingAddressBudget(budget),
      ) as RouteOptions['onRequest'];
    if (config.rawBody)
      route.preParsing = append(
        route.preParsing as Hook | Hook[] | undefined,
        captureRawBody,
      ) as RouteOptions['preParsing'];
  });
}
