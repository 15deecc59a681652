import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler, RouteOptions } from 'fastify';
import { TokenVerifier } from '../auth/authentication';
import { classifyError } from '../common/errors/all-exceptions.filter';
import { ErrorCode } from '../common/errors/error-code';
import { isPositiveId } from '../common/positive-id';
import { WaitingRoomService } from './waiting-room.service';
import { QueueRouteLimit } from './queue-route-limit';

const POLL_ROUTE = '/products/:id/queue/:ticket';
const JOIN_ROUTE = '/products/:id/queue';

/**
 * Joins and polls answered before the Nest pipeline. They are the waiting room's requests by the
 * hundred thousand (every queued buyer joins once and polls every few seconds), and need little of
 * the pipeline: a poll's only input is its signed ticket, a join's is a valid token. These hooks
 * call the same service as the controller, so the answers are the controller's. Anything else (a
 * malformed product id, a missing or bad token, an error the contract has no code for) goes on to
 * the controller and its guards, to be answered (and counted, and logged) there.
 */
export function installQueueShortcuts(fastify: FastifyInstance, deps: { room: WaitingRoomService; tokens: TokenVerifier; limit: QueueRouteLimit }): void {
  const shortcut = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const route = request.routeOptions.url;
    const { id, ticket } = request.params as { id?: string; ticket?: string };
    if (!isPositiveId(id)) return done();
    let answer: ReturnType<WaitingRoomService['poll']>;
    // Each spends its route's budget first, as the controller does (queue-route-limit.ts).
    if (request.method === 'GET' && route === POLL_ROUTE) answer = deps.limit.poll(id, ticket ?? '').then(() => deps.room.poll(id, ticket ?? ''));
    else if (request.method === 'POST' && route === JOIN_ROUTE) {
      let user: ReturnType<TokenVerifier['verify']>;
      try {
        user = deps.tokens.verify(request.headers.authorization);
      } catch {
        return done(); // the guard answers 401 (and counts the address) its usual way
      }
      answer = deps.limit.join(user).then(() => deps.room.join(id, user));
    } else return done();
    answer.then(
      (status) => send(reply, 200, status),
      (error: unknown) => {
        const refusal = classifyError(error);
        if (refusal.body.code === ErrorCode.Internal) return done();
        if (refusal.retryAfterS !== undefined) void reply.header('Retry-After', String(refusal.retryAfterS));
        send(reply, refusal.body.statusCode, refusal.body);
      },
    );
  };
  // A hook of these two routes alone (attached as Nest registers them): no other request runs it.
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if ((route.url === POLL_ROUTE && route.method === 'GET') || (route.url === JOIN_ROUTE && route.method === 'POST')) {
      route.preHandler = [...(route.preHandler ? [route.preHandler].flat() : []), shortcut as preHandlerHookHandler];
    }
  });
}

function send(reply: FastifyReply, status: number, body: unknown): void {
  void reply.code(status).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(body));
}
