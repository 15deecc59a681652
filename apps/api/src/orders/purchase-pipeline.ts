import { Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler, RouteOptions } from 'fastify';
import { AuthUser } from '../auth/auth.types';
import { TokenVerifier } from '../auth/authentication';
import { AppException, productNotFound } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { isPositiveId } from '../common/positive-id';
import { RateBudget, UserRateLimiter } from '../common/throttling/rate-limiter';
import { isSaleOpen, ProductCatalog } from '../inventory/product-catalog.service';
import { SaleTerms } from '../inventory/product.view';
import { SoldOutFlags } from '../inventory/sold-out-flags';
import { PurchaseBatches } from '../purchase-batches/purchase-batches.service';
import { deadlineNow, PurchaseDeadline, PurchaseDeadlines } from '../purchase-batches/purchase-deadline';
import { stockLockKeys } from '../stock/stock-keys';
import { AdmissionGate, TakenAdmission } from '../waiting-room/admission-gate';
import { MAX_QUANTITY } from './dto/purchase.dto';
import { PurchaseAnswer, ResultOrRefusal } from './purchase-answer';
import { PurchaseService } from './purchase.service';
import { perUserLimit, saleNotActive, soldOut } from './purchase-errors';

/**
 * A purchase as the pipeline let it through: who buys what, by when (`arrivedAt`, `deadlineAt`:
 * its PurchaseDeadline, made here once), under which terms.
 */
export interface Purchase extends PurchaseDeadline {
  /** The Idempotency-Key when well formed, else an id generated here; every answer carries it. */
  purchaseId: string;
  productId: string;
  quantity: number;
  idempotencyKey?: string;
  user: AuthUser;
  terms: SaleTerms;
  /** The waiting-room admission this purchase took, settled with its answer. */
  admission?: TakenAdmission;
}

type Request = FastifyRequest & { purchase?: Purchase; user?: AuthUser };
/** What a stage fills in as the purchase goes through. */
type Draft = Partial<Purchase> & Pick<Purchase, 'purchaseId' | 'arrivedAt' | 'deadlineAt'>;

/** A stage's refusal of the purchase; none (undefined) lets it go on. */
type Refusal = Error | undefined | void;

/**
 * A stage decides one thing: it fills in the draft, or returns the refusal. A refusal thrown
 * counts the same; the frequent ones are returned, since a CPU profile of the sold-out storm
 * found the throw at about 6 µs of each answer.
 */
interface Stage {
  name: string;
  /** A refusal of this stage is final only for a new purchase: a retried key gets its first answer. */
  replayable?: boolean;
  run(draft: Draft, request: Request): Refusal | Promise<Refusal>;
}

/**
 * Every decision a purchase meets before it is batched, each made here and only here, in this
 * order: the token (the per-address budget of failed tokens), the request's shape, the per-user
 * rate (a retry before the Retry-After this user was given for this product refused at once, then
 * the budget; before anything that can reach Postgres: an unknown product's terms are read there, and a
 * refused retry's key may be looked up among the orders), the sale terms (product, window,
 * per-user maximum), the sold-out flag, overload (an estimate that the purchase cannot be
 * answered by its deadline, checked before the waiting room's Redis round trip, since under a
 * spike most purchases are refused there), then the waiting-room admission. Runs once per
 * purchase, as the route's preHandler hook: a refusal is answered there (through PurchaseAnswer);
 * a purchase that passes reaches the controller as `request.purchase`.
 */
@Injectable()
export class PurchasePipeline {
  private readonly rate: RateBudget;
  private readonly stages: Stage[] = [
    { name: 'token', run: (draft, request) => this.authenticate(draft, request) },
    { name: 'request', run: (draft, request) => this.readRequest(draft, request) },
    { name: 'rate', run: (draft) => this.checkRate(draft) },
    { name: 'sale terms', replayable: true, run: (draft) => this.checkTerms(draft) },
    { name: 'sold out', replayable: true, run: (draft) => this.checkSoldOut(draft) },
    { name: 'overload', run: (draft) => this.checkOverload(draft) },
    { name: 'waiting room', run: (draft, request) => this.takeAdmission(draft, request) },
  ];

  constructor(
    private readonly tokens: TokenVerifier,
    private readonly catalog: ProductCatalog,
    private readonly flags: SoldOutFlags,
    private readonly batches: PurchaseBatches,
    private readonly deadlines: PurchaseDeadlines,
    private readonly admissions: AdmissionGate,
    private readonly answer: PurchaseAnswer,
    private readonly purchases: PurchaseService,
    limiter: UserRateLimiter,
  ) {
    this.rate = new RateBudget(limiter, new Logger(PurchasePipeline.name), 'purchase attempts');
  }

  /**
   * Runs the pipeline in front of the route marked @PurchaseRoute(), before Nest's guards and
   * handler: a preHandler of that route alone, attached as Nest registers it (so call this before
   * the app's init()). The route is found by its config, never by its path, so a global prefix or
   * URI versioning keeps it; an app whose purchase route was not bound refuses to start.
   */
  install(fastify: FastifyInstance): void {
    const hook = async (request: Request, reply: FastifyReply): Promise<void> => {
      const decided = await this.run(request, deadlineNow() - reply.elapsedTime);
      if ('outcome' in decided) return this.answer.write(reply, decided.purchase, decided.outcome);
      request.purchase = decided;
      request.user = decided.user;
    };
    let bound = 0;
    fastify.addHook('onRoute', (route: RouteOptions) => {
      // Fastify adds a HEAD route beside each GET with the same config; only the POST is a purchase.
      if (route.config?.purchasePipeline !== true || route.method !== 'POST') return;
      route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), hook as preHandlerAsyncHookHandler];
      bound++;
    });
    // A 202's Location follows the status route wherever it is mounted.
    this.answer.followStatusRoute(fastify);
    fastify.addHook('onReady', async () => {
      // Without the pipeline the handler would find no purchase: every purchase a 500.
      if (bound === 0)
        throw new Error(
          'no route is marked @PurchaseRoute(), or PurchasePipeline.install ran after the routes were registered',
        );
    });
  }

  /** The purchase to serve, or the answer it gets here: a refusal, or the replay of a retried key. */
  private async run(
    request: Request,
    arrivedAt: number,
  ): Promise<Purchase | { purchase: Draft; outcome: ResultOrRefusal }> {
    const key = request.headers['idempotency-key'];
    const draft: Draft = {
      purchaseId: typeof key === 'string' && isIdempotencyKey(key) ? key : generatePurchaseId(),
      arrivedAt,
      // The one place a purchase's deadline is made; every stage after reads this.
      deadlineAt: this.deadlines.deadlineOf(arrivedAt),
    };
    for (const stage of this.stages) {
      let refusal: unknown;
      try {
        const verdict = stage.run(draft, request);
        refusal = verdict instanceof Promise ? await verdict : verdict;
      } catch (thrown) {
        // Whatever a stage throws is its refusal: PurchaseAnswer answers it through the error policy.
        refusal = thrown;
      }
      if (refusal === undefined) continue;
      if (!stage.replayable || !draft.idempotencyKey) return { purchase: draft, outcome: { error: refusal } };
      // A refused retry of a key that already bought gets its first answer; a failed lookup, its error.
      const outcome: ResultOrRefusal = await this.purchases.replayOf(draft as Purchase).then(
        (replay) => (replay ? { result: replay } : { error: refusal }),
        (error: unknown) => ({ error }),
      );
      return { purchase: draft, outcome };
    }
    return draft as Purchase;
  }

  private authenticate(draft: Draft, request: Request): Refusal | Promise<Refusal> {
    const user = this.tokens.authenticateRequest(request);
    if (user instanceof Promise) {
      return user.then((known) => {
        draft.user = known;
      });
    }
    draft.user = user;
  }

  private readRequest(draft: Draft, request: Request): void {
    const productId = (request.params as { id?: string }).id;
    if (!isPositiveId(productId)) throw invalidRequest('id must be a positive integer');
    draft.productId = productId;
    draft.quantity = parsePurchaseBody(request.body).quantity;
    draft.idempotencyKey = parseIdempotencyKey(request.headers['idempotency-key']);
  }

  /**
   * A retry sent before the Retry-After this user was given for this product is refused first, in
   * process (PurchaseAnswer noted it; no Redis, no SQL, and it spends no budget); then the per-user budget.
   */
  private checkRate(draft: Draft): Refusal | Promise<Refusal> {
    const early = this.answer.retries.refusal(draft.user!.id, draft.productId!);
    if (early) return early;
    return this.rate.spend(`user:${draft.user!.id}`);
  }

  private checkTerms(draft: Draft): Refusal | Promise<Refusal> {
    const known = this.catalog.knownTerms(draft.productId!);
    if (known) return this.judgeTerms(draft, known);
    return this.catalog.saleTerms(draft.productId!).then((terms) => this.judgeTerms(draft, terms));
  }

  private judgeTerms(draft: Draft, terms: SaleTerms | undefined): Refusal {
    if (!terms) return productNotFound(draft.productId!);
    if (!isSaleOpen(terms, Date.now())) return saleNotActive();
    if (draft.quantity! > terms.perUserLimit) return perUserLimit(terms.perUserLimit);
    draft.terms = terms;
  }

  private checkSoldOut(draft: Draft): Refusal | Promise<Refusal> {
    if (this.flags.knownSoldOut(draft.productId!)) return soldOut(draft.productId!);
    return this.flags.isSoldOut(draft.productId!).then((sold) => (sold ? soldOut(draft.productId!) : undefined));
  }

  /** A segmented product is refused only when every segment's batcher would refuse (any may serve it). */
  private checkOverload(draft: Draft): Refusal {
    return this.batches.precheck(stockLockKeys(draft.productId!, draft.terms!.segments), draft.deadlineAt);
  }

  private async takeAdmission(draft: Draft, request: Request): Promise<void> {
    if (!draft.terms!.waitingRoom) return;
    draft.admission = await this.admissions.take(draft.productId!, draft.user!.id, request.headers.admission);
  }
}

/** An id for a purchase that came without a well-formed Idempotency-Key; `p-` keeps it apart from the common keys. */
export const generatePurchaseId = (): string => `p-${crypto.randomUUID()}`;

// ---- what a purchase request says: its body and its Idempotency-Key

const invalidRequest = (message: string) => new AppException(ErrorCode.ValidationFailed, message);

const KEY_PATTERN = /^[A-Za-z0-9._:~-]{1,128}$/;

/** Whether a header value is a well-formed Idempotency-Key. */
export const isIdempotencyKey = (raw: string): boolean => KEY_PATTERN.test(raw);

/** Validates the optional Idempotency-Key header; undefined when absent. */
export function parseIdempotencyKey(raw: string | string[] | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Array.isArray(raw) || !isIdempotencyKey(raw)) {
    throw invalidRequest('Idempotency-Key must be 1 to 128 characters of letters, digits and . _ : ~ -');
  }
  return raw;
}

export interface PurchaseBody {
  quantity: number;
}

/**
 * The purchase body, checked by hand: it is the hottest body of the API, and the class-validator
 * pipeline (instantiate, reflect over decorators, validate, collect) cost more than the rest of
 * a refusal. Same rules as the other DTOs: absent body or field means one unit; unknown fields,
 * wrong types (no coercion: "1" is not 1) and `null` are refused with 400 VALIDATION_FAILED.
 */
export function parsePurchaseBody(body: unknown): PurchaseBody {
  if (body === undefined) return { quantity: 1 };
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidRequest('the request body must be a JSON object');
  let quantity: unknown = 1;
  for (const key in body) {
    if (!Object.prototype.hasOwnProperty.call(body, key)) continue;
    if (key !== 'quantity') throw invalidRequest(`property ${key} should not exist`);
    quantity = (body as { quantity: unknown }).quantity;
  }
  if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    throw invalidRequest(`quantity must be an integer from 1 to ${MAX_QUANTITY}`);
  }
  return { quantity };
}
