import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from './app.module';
import { AppConfig } from './config/app-config';
import { createValidationPipe } from './common/validation.pipe';
import { instrumentHttp } from './metrics/http-metrics';
import { AppLogger } from './logging/app-logger';
import { installRequestLog } from './logging/request-log';
import { TokenVerifier } from './auth/token-verifier';
import { ProductCatalog } from './inventory/product-catalog.service';
import { installSoldOutShortcut } from './orders/early-refusal/sold-out-shortcut';
import { installOverloadShortcut } from './orders/early-refusal/overload-shortcut';
import { installQueueShortcuts } from './waiting-room/queue-shortcuts';
import { WaitingRoomService } from './waiting-room/waiting-room.service';
import { QueueRouteLimit } from './waiting-room/queue-route-limit';
import { EarlyRefusals } from './orders/early-refusal/early-refusals';
import { PurchaseAdmission } from './orders/admission/purchase-admission';
import { PurchaseMetrics } from './orders/purchase.metrics';
import { installShutdownGate, ShutdownState } from './common/shutdown-gate';
import { contractErrorOptions } from './common/errors/fastify-error-handlers';
import { edgeServerOptions, installHttpEdge } from './http/http-edge';
import { installOversizedBodyDrain } from './http/oversized-body';
import { withEdgeHeaders } from './http/edge-headers';
import { describeEdgeHeaders, EDGE_HEADERS_DESCRIPTION, REQUEST_ID_PARAMETER } from './http/edge-swagger';
import { installPaymentRoutes } from './payments/payment-routes';
import { installOpsRoutes } from './metrics/ops-routes';

/** Builds the configured app without listening; main.ts and the e2e tests share it. */
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
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, { bufferLogs: true, abortOnError: false });
  app.useLogger(app.get(AppLogger));
  const fastify = app.getHttpAdapter().getInstance();
  // Before init(): its route hooks are added as Nest registers the routes.
  installPaymentRoutes(fastify, config.payments);
  // /metrics and /health/details only on METRICS_PORT when it is set (production's default).
  installOpsRoutes(fastify, config.ops);
  await installHttpEdge(app, config.edge);
  installOversizedBodyDrain(fastify, config.http.bodyLimitBytes);
  installShutdownGate(fastify, app.get(ShutdownState));
  instrumentHttp(fastify);
  installRequestLog(fastify, app.get(AppLogger).pino);
  installSoldOutShortcut(fastify, { tokens: app.get(TokenVerifier), early: app.get(EarlyRefusals), catalog: app.get(ProductCatalog), metrics: app.get(PurchaseMetrics) });
  // After the sold-out shortcut: a sold-out answer is final and cheaper than a retry.
  installOverloadShortcut(fastify, { tokens: app.get(TokenVerifier), admission: app.get(PurchaseAdmission), metrics: app.get(PurchaseMetrics), catalog: app.get(ProductCatalog) });
  installQueueShortcuts(fastify, { room: app.get(WaitingRoomService), tokens: app.get(TokenVerifier), limit: app.get(QueueRouteLimit) });
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
