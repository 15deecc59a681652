import Fastify, { FastifyInstance } from 'fastify';
import { PurchasePipeline } from './purchase-pipeline';

/** The pipeline with nothing behind it: binding a route needs none of its collaborators. */
const unwiredPipeline = (): PurchasePipeline =>
  new (PurchasePipeline as unknown as new (...deps: unknown[]) => PurchasePipeline)({}, {}, {}, {}, {}, {}, {}, {});

describe('binding the purchase pipeline to its route', () => {
  let fastify: FastifyInstance;
  beforeEach(() => {
    fastify = Fastify();
    unwiredPipeline().install(fastify);
  });
  afterEach(() => fastify.close());

  it('binds the POST route marked purchasePipeline, whatever its path', async () => {
    await fastify.register(
      async (scope) => {
        scope.post('/v2/anything/:id', { config: { purchasePipeline: true } }, async () => 'served');
      },
      { prefix: '/api' },
    );
    await expect(fastify.ready()).resolves.toBeDefined();
  });

  it('refuses to start when no route carries the mark, rather than serve purchases the pipeline never saw', async () => {
    fastify.post('/products/:id/purchase', async () => 'served');
    fastify.get('/products/:id/purchase', { config: { purchasePipeline: true } }, async () => 'served');
    await expect(fastify.ready()).rejects.toThrow(/@PurchaseRoute\(\)/);
  });
});
