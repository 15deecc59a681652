import { RouteConfig } from '@nestjs/platform-fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route PurchasePipeline runs in front of (set by @PurchaseRoute()). */
    purchasePipeline?: boolean;
  }
}

/**
 * Marks the purchase handler: PurchasePipeline runs as its route's preHandler. The mark is route
 * config (Nest's @RouteConfig), read once as Nest registers the route, so the pipeline follows
 * the route under a global prefix or URI versioning. Another @RouteConfig on the same method
 * would replace it.
 */
export const PurchaseRoute = (): MethodDecorator => RouteConfig({ purchasePipeline: true });
