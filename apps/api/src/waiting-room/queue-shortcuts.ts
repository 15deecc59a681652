import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler, RouteOptions } from 'fastify';
import { TokenVerifier } from '../auth/authentication';
import { classifyError } from '../common/errors/all-exceptions.filter';
import { AppException } from '../common/errors/app.exception';
import { ErrorCode } from '../common/errors/error-code';
import { isPositiveId } from '../common/positive-id';
import { challengeCacheControl } from './join-work/join-work';
import { JOIN_WORK_NONCE } from './join-work/solve';
import { JoinInput, WaitingRoomService } from './waiting-room.service';
import { QueueRouteLimit } from './queue-route-limit';
import { QueueShortcutKind } from './queue-shortcut.decorator';

type Shortcut = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/**
 * Joins and polls answered before the Nest pipeline. They are the waiting room's requests by the
 * hundred thousand (every queued buyer joins once and polls every few seconds), and need little of
 * the pipeline: a poll's only input is its signed ticket, a join's is a valid token. These hooks
 * call the same service as the controller, so the answers are the controller's. Anything else (a
 * malformed product id, a missing or bad token, an error the contract has no code for) goes on to
 * the controller and its guards, to be answered (and counted, and logged) there.
 */
export function installQueueShortcuts(
  fastify: FastifyInstance,
  deps: { room: WaitingRoomService; tokens: TokenVerifier; limit: QueueRouteLimit },
): void {
  // Each spends its route's budget first, as the controller does (queue-route-limit.ts).
  const poll: Shortcut = (request, reply, done) => {
    const { id, ticket } = request.params as { id?: string; ticket?: string };
    if (!isPositiveId(id)) return done();
    answer(
      deps.limit.poll(id, ticket ?? '').then((claims) => deps.room.poll(id, ticket ?? '', claims)),
      reply,
      done,
    );
  };
  const join: Shortcut = (request, reply, done) => {
    const { id } = request.params as { id?: string };
    const body = joinBody(request.body);
    if (!isPositiveId(id) || body === undefined) return done();
    const user = userOf(deps.tokens, request);
    if (!user) return done(); // the guard answers 401 (and counts the address) its usual way
    answer(
      deps.limit.join(user).then(() => deps.room.join(id, user, { address: request.ip, work: body.work })),
      reply,
      done,
    );
  };
  // The sale's join-work challenge: public, the same for every client this minute, from memory
  // once the sale's terms and seed are known; its address's budget first, as the controller does.
  const challenge: Shortcut = (request, reply, done) => {
    const { id } = request.params as { id?: string };
    if (!isPositiveId(id)) return done();
    // Only a challenge may be kept: a refusal (not open yet, no work) must not outlive its moment.
    const served = deps.limit
      .challenge(request.ip)
      .then(() => deps.room.challenge(id))
      .then((challenge) => {
        void reply.header('Cache-Control', challengeCacheControl(Date.now()));
        return challenge;
      });
    answer(served, reply, done);
  };
  const shortcuts: Record<QueueShortcutKind, { method: string; hook: Shortcut }> = {
    poll: { method: 'GET', hook: poll },
    join: { method: 'POST', hook: join },
    challenge: { method: 'GET', hook: challenge },
  };
  // A hook of the routes marked @QueueShortcut() alone, attached as Nest registers them (found by
  // their config, never their path, so a global prefix or URI versioning keeps them).
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const kind = route.config?.queueShortcut;
    // Fastify adds a HEAD route beside each GET with the same config: not a shortcut.
    if (kind === undefined || route.method !== shortcuts[kind].method) return;
    route.preHandler = [
      ...(route.preHandler ? [route.preHandler].flat() : []),
      shortcuts[kind].hook as preHandlerHookHandler,
    ];
  });
}

/**
 * The user of a request's token when it is one this instance can vouch for at once; else undefined.
 * Checked as the guard checks it, address included: an address this instance saw spend its failure
 * budget gets no signature check here, and the guard then answers its 429 without one either.
 */
function userOf(tokens: TokenVerifier, request: FastifyRequest): ReturnType<TokenVerifier['verify']> | undefined {
  try {
    return tokens.verify(request.headers.authorization, request.ip);
  } catch (refusal) {
    if (!(refusal instanceof AppException)) throw refusal;
    return undefined;
  }
}

/**
 * A join's body when it is one the controller's validation would pass as it is: none, or `{ work:
 * { challenge, nonce, solution } }` of strings within their bounds and nothing else; undefined for
 * anything else, which goes on to the controller (400 VALIDATION_FAILED).
 */
function joinBody(body: unknown): JoinInput | undefined {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) return undefined;
  const keys = Object.keys(body);
  if (keys.length === 0) return {};
  if (keys.length !== 1 || keys[0] !== 'work') return undefined;
  const work = (body as { work: unknown }).work;
  if (typeof work !== 'object' || work === null || Array.isArray(work) || Object.keys(work).length !== 3)
    return undefined;
  const { challenge, nonce, solution } = work as { challenge?: unknown; nonce?: unknown; solution?: unknown };
  if (typeof challenge !== 'string' || challenge.length > 256) return undefined;
  if (typeof nonce !== 'string' || !JOIN_WORK_NONCE.test(nonce)) return undefined;
  if (typeof solution !== 'string' || solution.length > 1024) return undefined;
  return { work: { challenge, nonce, solution } };
}

/** The service's answer sent as the controller would send it; an error the contract has no code for goes on to the controller. */
function answer(pending: Promise<unknown>, reply: FastifyReply, done: () => void): void {
  pending.then(
    (status) => send(reply, 200, status),
    (error: unknown) => {
      const refusal = classifyError(error);
      if (refusal.body.code === ErrorCode.Internal) return done();
      if (refusal.retryAfterS !== undefined) void reply.header('Retry-After', String(refusal.retryAfterS));
      send(reply, refusal.body.statusCode, refusal.body);
    },
  );
}

function send(reply: FastifyReply, status: number, body: unknown): void {
  void reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}
