import { VersioningType } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { WaitingRoomController } from '../../apps/api/src/waiting-room/waiting-room.controller';
import { Api, expectContractError, injectSender, Send } from '../support/api-client';
import { AppHarness, ConfigureApp, startApp } from '../support/app-harness';
import { auth } from '../support/tokens';
import { WaitingRoomClient } from '../support/waiting-room-client';

/**
 * A team mounts the API under a global prefix or URI versioning in its main.ts, after createApp
 * (the contract: only the paths change). The purchase pipeline and the waiting room's join and poll shortcuts must follow their
 * routes there: a purchase is decided by the pipeline and served, a join and a poll are answered
 * by the shortcuts, before the controller.
 */
const MOUNTS: { name: string; base: string; mount: ConfigureApp }[] = [
  { name: 'a global prefix', base: '/api', mount: (app) => void app.setGlobalPrefix('api') },
  {
    name: 'URI versioning',
    base: '/v1',
    mount: (app) => void app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' }),
  },
  {
    name: 'a global prefix and URI versioning',
    base: '/api/v1',
    mount: (app) => void app.setGlobalPrefix('api').enableVersioning({ type: VersioningType.URI, defaultVersion: '1' }),
  },
];

/** A spy on a controller's handler that keeps what Nest reads from the method (its status code). */
function spyOnHandler(controller: WaitingRoomController, method: 'join' | 'poll'): jest.SpyInstance {
  const original = controller[method];
  const spy = jest.spyOn(controller, method);
  for (const key of Reflect.getMetadataKeys(original))
    Reflect.defineMetadata(key, Reflect.getMetadata(key, original), controller[method]);
  return spy;
}

describe.each(MOUNTS)('the API mounted under $name', ({ base, mount }) => {
  let harness: AppHarness;
  let send: Send;
  let api: Api;
  let room: WaitingRoomClient;
  let controllerJoins: jest.SpyInstance;
  let controllerPolls: jest.SpyInstance;

  beforeAll(async () => {
    const mountAndSpy = (app: NestFastifyApplication): void => {
      mount(app);
      // Spied on the instance before its routes are registered: Nest binds the handler then.
      controllerJoins = spyOnHandler(app.get(WaitingRoomController), 'join');
      controllerPolls = spyOnHandler(app.get(WaitingRoomController), 'poll');
    };
    harness = await startApp({ RATE_LIMIT_PER_SECOND: '1000', WAITING_ROOM_TICK_MS: '50' }, undefined, mountAndSpy);
    send = injectSender(harness.app);
    const mounted: Send = (request) => send({ ...request, url: `${base}${request.url}` });
    api = new Api(mounted);
    room = new WaitingRoomClient(mounted);
  });
  afterAll(async () => {
    controllerJoins?.mockRestore();
    controllerPolls?.mockRestore();
    await harness?.close();
  });

  it('buys: the pipeline decides the purchase and the order is committed once', async () => {
    const product = await api.createProduct({ stock: 5, perUserLimit: 2 });
    const bought = await api.purchase(product.id, 'mounted-buyer', { quantity: 2, idempotencyKey: 'mounted-key-1' });
    expect(bought.status).toBe(201);
    expect(bought.headers['purchase-id']).toBe('mounted-key-1');
    expect(bought.body).toMatchObject({
      productId: product.id,
      userId: 'mounted-buyer',
      quantity: 2,
      status: 'PENDING_PAYMENT',
      purchaseId: 'mounted-key-1',
    });

    const replay = await api.purchase(product.id, 'mounted-buyer', { quantity: 2, idempotencyKey: 'mounted-key-1' });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(bought.body.id);
    // Refusals only the pipeline makes, before the handler.
    expectContractError(await api.purchase(product.id, 'other-buyer', { quantity: 3 }), 409, 'PER_USER_LIMIT');
    expectContractError(
      await api.send({ method: 'POST', url: `/products/${product.id}/purchase`, payload: { quantity: 1 } }),
      401,
      'UNAUTHENTICATED',
    );
    expect((await api.getProduct(product.id)).body.stock).toBe(3);
    // The unmounted path is not a route any more.
    expect(
      (
        await send({
          method: 'POST',
          url: `/products/${product.id}/purchase`,
          headers: auth('mounted-buyer'),
          payload: { quantity: 1 },
        })
      ).status,
    ).toBe(404);
  });

  it('joins and polls through the shortcuts, then buys with the admission', async () => {
    const product = await room.createProduct({ stock: 3, perUserLimit: 1, waitingRoom: { admitPerSecond: 50 } });
    const ticket = await room.joined(product.id, 'queued-buyer');
    expect((await room.joined(product.id, 'queued-buyer')).ticketId).toBe(ticket.ticketId);
    const admitted = await room.until(product.id, ticket.ticket, ['ADMITTED']);
    expectContractError(await room.purchase(product.id, 'queued-buyer'), 403, 'NOT_ADMITTED');
    const bought = await room.purchase(product.id, 'queued-buyer', admitted.admission);
    expect(bought.status).toBe(201);
    expect((await room.status(product.id, ticket.ticket)).state).toBe('BOUGHT');
    // Every join and poll above was answered before the controller.
    expect(controllerJoins).not.toHaveBeenCalled();
    expect(controllerPolls).not.toHaveBeenCalled();
  });

  it('documents the mounted paths at /docs (the Swagger document is built after the mount)', async () => {
    const document = await send({ method: 'GET', url: '/docs-json' });
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([`${base}/products/{id}/purchase`, `${base}/products/{id}/queue/{ticket}`]),
    );
  });
});
