import { RateClock } from '../common/throttling/rate-limiter';
import { AllExceptionsFilter } from '../common/errors/all-exceptions.filter';
import Fastify, { FastifyInstance } from 'fastify';
import type { PurchaseBatches } from '../purchase-batches/purchase-batches.service';
import { PurchaseAnswer } from './purchase-answer';
import { PurchasePipeline } from './purchase-pipeline';

/** The pipeline with nothing behind it but its answer: binding routes needs none of the rest. */
function unwiredPipeline(answer: PurchaseAnswer): PurchasePipeline {
  const Pipeline = PurchasePipeline as unknown as new (...deps: unknown[]) => PurchasePipeline;
  return new Pipeline({}, {}, {}, {}, {}, {}, answer, {}, {});
}

describe('binding the purchase routes by their mark, not their path', () => {
  let fastify: FastifyInstance;
  let answer: PurchaseAnswer;
  beforeEach(() => {
    fastify = Fastify();
    answer = new PurchaseAnswer(
      { countIfLate: () => undefined } as unknown as PurchaseBatches,
      new AllExceptionsFilter(),
      new RateClock(),
    );
    unwiredPipeline(answer).install(fastify);
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

  it("names the status route where it is mounted in a pending purchase's Location", async () => {
    await fastify.register(
      async (scope) => {
        scope.post('/products/:id/purchase', { config: { purchasePipeline: true } }, async () => 'served');
        scope.get('/purchases/:purchaseId', { config: { purchaseStatus: true } }, async () => 'status');
      },
      { prefix: '/api/v1' },
    );
    fastify.get('/pending', (_request, reply) =>
      answer.write(reply, { purchaseId: 'p 1', deadlineAt: 0 }, { result: { kind: 'pending', purchaseId: 'p 1' } }),
    );
    const res = await fastify.inject({ method: 'GET', url: '/pending' });
    expect(res.statusCode).toBe(202);
    expect(res.headers.location).toBe('/api/v1/purchases/p%201');
  });
});
