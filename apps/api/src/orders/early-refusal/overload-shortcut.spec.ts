import { ConfigService } from '@nestjs/config';
import Fastify, { FastifyInstance } from 'fastify';
import { TypedConfigService } from '../../config/app-config.module';
import { installOverloadShortcut } from './overload-shortcut';
import { monotonicNow, PurchaseAdmission } from '../admission/purchase-admission';

const DEADLINE = 2000;
const config = { get: () => ({ purchaseDeadlineMs: DEADLINE, purchaseQueueMax: 100_000 }) } as unknown as TypedConfigService & ConfigService;

/**
 * The early overload refusal, through a bare Fastify app with the real hook and the real
 * admission: a route that would answer 201 stands for the rest of the pipeline.
 */
describe('the early overload refusal', () => {
  let admission: PurchaseAdmission;
  let app: FastifyInstance;
  const segmentsOf: Record<string, number> = { '1': 1, '2': 3 };

  beforeEach(async () => {
    admission = new PurchaseAdmission(config);
    app = Fastify();
    app.post('/products/:id/purchase', async (_request, reply) => reply.code(201).send({ served: true }));
    installOverloadShortcut(app, {
      tokens: { verify: () => ({ id: 'u1', role: 'user' }) } as never,
      admission,
      metrics: { countRefusal: jest.fn() } as never,
      catalog: { knownTerms: (id: string) => (segmentsOf[id] ? { id, segments: segmentsOf[id] } : undefined) } as never,
    });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    admission.onModuleDestroy();
  });

  /** One purchase queued on the unit, whose measured batches take longer than a deadline. */
  const makeLate = (unit: string): void => {
    const now = monotonicNow();
    const line = admission.admit(unit, { arrivedAt: now, deadline: now + DEADLINE, reject: jest.fn() }, now);
    for (let i = 0; i < 3; i++) line.model.observe(1, 3000);
  };
  const purchase = (productId: string) => app.inject({ method: 'POST', url: `/products/${productId}/purchase`, headers: { authorization: 'Bearer t' }, payload: { quantity: 1 } });

  it('refuses a plain product whose queue cannot answer in time', async () => {
    makeLate('stock:1');
    const res = await purchase('1');
    expect([res.statusCode, res.json().code]).toEqual([503, 'OVERLOADED']);
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('refuses a segmented product whose every segment queue cannot answer in time', async () => {
    ['stock:2:0', 'stock:2:1', 'stock:2:2'].forEach(makeLate);
    const res = await purchase('2');
    expect([res.statusCode, res.json().code]).toEqual([503, 'OVERLOADED']);
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('lets a segmented purchase through while one of its segments can still answer in time', async () => {
    ['stock:2:0', 'stock:2:2'].forEach(makeLate);
    const res = await purchase('2');
    expect(res.statusCode).toBe(201);
  });

  it('lets purchases of idle products through', async () => {
    expect((await purchase('1')).statusCode).toBe(201);
    expect((await purchase('2')).statusCode).toBe(201);
  });
});
