/**
 * The app takes all its locks without re-entry, the lock handed to each method as a parameter
 * (on Node 20 and 22 the first AsyncLocalStorage scope would switch on promise hooks for every
 * promise; on Node 24 it measured inside noise, and the parameter stays by design). This checks
 * that a sale, from start-up through every kind of lock the app takes, enters no scope at all.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppHarness, startApp } from '../support/app-harness';
import { Api, injectSender } from '../support/api-client';
import { auth } from '../support/tokens';
import { OrderExpiryService } from '../../apps/api/src/orders/order-expiry.service';

jest.setTimeout(60_000);

describe('a sale enters no AsyncLocalStorage scope', () => {
  const { run, enterWith } = AsyncLocalStorage.prototype;
  /** Where each scope was entered: a few frames of the stack. */
  const entered: string[] = [];
  const where = () => (new Error().stack ?? '').split('\n').slice(3, 7).join(' <');
  // jest 30 runs each test and hook in a scope of its own: the runner's, not the app's.
  const record = (stack: string) => {
    if (!stack.includes('/node_modules/jest-circus/')) entered.push(stack);
  };
  let harness: AppHarness;
  let api: Api;

  beforeAll(async () => {
    AsyncLocalStorage.prototype.run = function (this: AsyncLocalStorage<unknown>, ...args: Parameters<typeof run>) {
      record(where());
      return run.apply(this, args);
    } as typeof run;
    AsyncLocalStorage.prototype.enterWith = function (this: AsyncLocalStorage<unknown>, store: unknown) {
      record(where());
      return enterWith.call(this, store);
    };
    harness = await startApp();
    api = new Api(injectSender(harness.app));
  });
  afterAll(async () => {
    Object.assign(AsyncLocalStorage.prototype, { run, enterWith });
    await harness?.close();
  });

  it('takes the SKU, product, segment, all-segments, order and expiry-job locks without one', async () => {
    const product = await api.createProduct({ stock: 5 });
    expect((await api.setStock(product.id, 6)).status).toBe(200);
    const bought = await Promise.all(['ctx-a', 'ctx-b', 'ctx-c'].map((user) => api.purchase(product.id, user)));
    expect(bought.map((res) => res.status)).toEqual([201, 201, 201]);
    expect((await api.pay(bought[0].body!.id, auth('ctx-a'))).status).toBe(200);
    expect((await api.cancel(bought[1].body!.id, auth('ctx-b'))).status).toBe(200);

    const segmented = await api.createProduct({ stock: 8, segments: 4 } as never);
    expect((await api.purchase(segmented.id, 'ctx-d')).status).toBe(201);
    expect((await api.setStock(segmented.id, 4)).status).toBe(200);
    await harness.app.get(OrderExpiryService).tick();

    expect(entered).toEqual([]);
  });
});
