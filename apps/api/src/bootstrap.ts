import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { createValidationPipe } from './common/validation.pipe';
import { AppLogger } from './logging/app-logger';
import { installQueueShortcuts } from './waiting-room/queue-shortcuts';
import { WaitingRoomService } from './waiting-room/waiting-room.service';
import { QueueRouteLimit } from './waiting-room/queue-route-limit';
import { TokenVerifier } from './auth/authentication';
import { PurchasePipeline } from './orders/purchase-pipeline';
import { ShutdownState } from './common/shutdown-gate';
import { contractErrorOptions } from './common/errors/fastify-error-handlers';
import { edgeServerOptions, installHttpEdge } from './http/http-edge';
import {
  installOversizedBodyDrain,
  installShutdownGate,
  installRequestLog,
  instrumentHttp,
  withEdgeHeaders,
} from './http/edge-hooks';
import { installPaymentRoutes } from './payments/payment-routes';
import { WebhookAddressLimit } from './payments/webhook-address-limit';
import { installOpsRoutes } from './metrics/ops-routes';

/**
 * Builds the configured app without listening; main.ts and the e2e tests share it. Routes are
 * registered at init (or listen), so a `setGlobalPrefix` or `enableVersioning` on the result
 * still moves them, and every route keeps its hooks (they are bound by route metadata). The API
 * docs are set up after that, by setUpApiDocs (http/api-docs.ts).
 */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    // On close, drop idle keep-alive sockets so shutdown waits only for in-flight requests.
    forceCloseConnections: 'idle',
    // Draining requests are refused by our shutdown gate, in the contract's shape.
    return503OnClosing: false,
    ...contractErrorOptions,
    frameworkErrors: withEdgeHeaders(contractErrorOptions.frameworkErrors),
    ...edgeServerOptions(config.edge),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, {
    bufferLogs: true,
    abortOnError: false,
  });
  app.useLogger(app.get(AppLogger));
  const fastify = app.getHttpAdapter().getInstance();
  // Before init(): its route hooks are added as Nest registers the routes.
  installPaymentRoutes(fastify, config.payments, app.get(WebhookAddressLimit));
  // /metrics and /health/details only on METRICS_PORT when it is set (production's default).
  installOpsRoutes(fastify, config.ops);
  await installHttpEdge(app, config.edge);
  installOversizedBodyDrain(fastify, config.http.bodyLimitBytes);
  installShutdownGate(fastify, app.get(ShutdownState));
  instrumentHttp(fastify);
  installRequestLog(fastify, app.get(AppLogger).pino);
  // Every decision a purchase meets before its queue, once, in the purchase route's one hook.
  app.get(PurchasePipeline).install(fastify);
  installQueueShortcuts(fastify, {
    room: app.get(WaitingRoomService),
    tokens: app.get(TokenVerifier),
    limit: app.get(QueueRouteLimit),
  });
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  return app;
}
