import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
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
import { describeEdgeHeaders, EDGE_HEADERS_DESCRIPTION, REQUEST_ID_PARAMETER } from './http/edge-swagger';
import { installPaymentRoutes } from './payments/payment-routes';
import { WebhookAddressLimit } from './payments/webhook-address-limit';
import { installOpsRoutes } from './metrics/ops-routes';

/** How an app is put together beyond its configuration. */
export interface AppOptions {
  /**
   * Where the routes are mounted, applied before any route or the Swagger document is built:
   * `(app) => app.setGlobalPrefix('api')`, `(app) => app.enableVersioning({ type: VersioningType.URI })`.
   * Only the paths change; every route keeps its hooks (they are bound by route metadata).
   */
  mount?: (app: NestFastifyApplication) => void;
}

/** Builds the configured app without listening; main.ts and the e2e tests share it. */
export async function createApp(config: AppConfig, options: AppOptions = {}): Promise<NestFastifyApplication> {
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
  options.mount?.(app);
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
  if (config.ops.docsEnabled) setUpSwagger(app);
  return app;
}

/** Swagger UI at /docs and the document at /docs-json (DOCS_ENABLED; off in production by default). */
function setUpSwagger(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Flash-sale API')
      .setDescription(`Storefront, orders and admin seeding.\n\n${EDGE_HEADERS_DESCRIPTION}`)
      .addBearerAuth()
      .addGlobalParameters(REQUEST_ID_PARAMETER)
      .build(),
  );
  describeEdgeHeaders(document);
  SwaggerModule.setup('docs', app, document);
}
