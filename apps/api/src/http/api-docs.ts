import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { OpsConfig } from '../config/ops-config';
import { describeEdgeHeaders, EDGE_HEADERS_DESCRIPTION, REQUEST_ID_PARAMETER } from './edge-swagger';
import { DOCS_PREFIX } from './edge-hooks';

/**
 * Swagger UI at /docs and the document at /docs-json, when DOCS_ENABLED (off in production by
 * default). Call it after any `setGlobalPrefix` or `enableVersioning` and before `listen`: the
 * document is read from the routes as they are mounted then. /docs itself stays at the root.
 */
export function setUpApiDocs(app: INestApplication, ops: Pick<OpsConfig, 'docsEnabled'>): void {
  if (!ops.docsEnabled) return;
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
  SwaggerModule.setup(DOCS_PREFIX, app, document);
}
