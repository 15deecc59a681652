import { RouteConfig } from '@nestjs/platform-fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route PurchasePipeline runs in front of (set by @PurchaseRoute()). */
    purchasePipeline?: boolean;
    /** The route a 202's Location names (set by @PurchaseStatusRoute()). */
    purchaseStatus?: boolean;
  }
}

/**
 * Marks the purchase handler: PurchasePipeline runs as its route's preHandler. The mark is route
 * config (Nest's @RouteConfig), read once as Nest registers the route, so the pipeline follows
 * the route under a global prefix or URI versioning. Another @RouteConfig on the same method
 * would replace it.
 */
export const PurchaseRoute = (): MethodDecorator => RouteConfig({ purchasePipeline: true });

/**
 * Marks `GET /purchases/:purchaseId`: a 202 PURCHASE_PENDING's Location names this route where it
 * is mounted (learnt as Nest registers it, with its prefix or version).
 */
export const PurchaseStatusRoute = (): MethodDecorator => RouteConfig({ purchaseStatus: true });
