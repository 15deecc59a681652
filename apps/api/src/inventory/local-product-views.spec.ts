import { LocalProductViews, LOCAL_VIEW_MS, MAX_LOCAL_MISSING, MAX_LOCAL_VIEWS } from './local-product-views';
import type { ProductView } from './product.view';

const viewOf = (id: string, stock = 5): ProductView =>
  ({
    id,
    sku: `SKU-${id}`,
    name: 'p',
    priceCents: 100,
    stock,
    perUserLimit: 1,
    saleStartsAt: null,
    saleEndsAt: null,
  }) as ProductView;

/** A load that answers what `catalogue` holds, counting its calls per id. */
function postgres(catalogue: Map<string, ProductView>) {
  const calls = new Map<string, number>();
  const load = async (id: string) => {
    calls.set(id, (calls.get(id) ?? 0) + 1);
    return catalogue.get(id) ?? null;
  };
  return { load, calls, total: () => [...calls.values()].reduce((a, b) => a + b, 0) };
}

describe('LocalProductViews', () => {
  const t0 = 1_700_000_000_000;

  it('shares one read between the readers of a product that arrive while it is in flight', async () => {
    const db = postgres(new Map([['1', viewOf('1')]]));
    const views = new LocalProductViews();
    const read = await Promise.all(Array.from({ length: 300 }, () => views.read('1', db.load, t0)));
    expect(read.every((v) => v?.id === '1')).toBe(true);
    expect(db.calls.get('1')).toBe(1);
  });

  it('serves what it read for LOCAL_VIEW_MS, then reads again: never staler than that', async () => {
    const catalogue = new Map([['1', viewOf('1', 5)]]);
    const db = postgres(catalogue);
    const views = new LocalProductViews();
    await views.read('1', db.load, t0);
    catalogue.set('1', viewOf('1', 4));
    expect((await views.read('1', db.load, t0 + LOCAL_VIEW_MS - 1))?.stock).toBe(5);
    expect((await views.read('1', db.load, t0 + LOCAL_VIEW_MS))?.stock).toBe(4);
    expect(db.calls.get('1')).toBe(2);
  });

  it('remembers an id that names nothing for as long, apart from the products', async () => {
    const db = postgres(new Map());
    const views = new LocalProductViews();
    expect(await views.read('9', db.load, t0)).toBeNull();
    expect(await views.read('9', db.load, t0 + 10)).toBeNull();
    expect(db.calls.get('9')).toBe(1);
    expect(views.size).toEqual({ views: 0, missing: 1 });
  });

  it('lets no flood of unknown ids fill it or push a product out', async () => {
    const db = postgres(new Map([['1', viewOf('1')]]));
    const views = new LocalProductViews();
    await views.read('1', db.load, t0);
    for (let id = 1000; id < 1000 + 5 * MAX_LOCAL_MISSING; id++) await views.read(String(id), db.load, t0 + 1);
    expect(views.size.missing).toBeLessThanOrEqual(MAX_LOCAL_MISSING);
    expect(views.size.views).toBe(1);
    expect((await views.read('1', db.load, t0 + 2))?.id).toBe('1');
    expect(db.calls.get('1')).toBe(1);
  });

  it('holds at most MAX_LOCAL_VIEWS products: lapsed views make room, live ones are kept', async () => {
    const catalogue = new Map(
      Array.from({ length: MAX_LOCAL_VIEWS + 1 }, (_, i) => [String(i + 1), viewOf(String(i + 1))]),
    );
    const db = postgres(catalogue);
    const views = new LocalProductViews();
    for (let i = 1; i <= MAX_LOCAL_VIEWS; i++) await views.read(String(i), db.load, t0);
    // Full of live views: the next product is served but not kept, and nobody is pushed out.
    expect((await views.read(String(MAX_LOCAL_VIEWS + 1), db.load, t0 + 1))?.id).toBe(String(MAX_LOCAL_VIEWS + 1));
    expect(views.size.views).toBe(MAX_LOCAL_VIEWS);
    await views.read('1', db.load, t0 + 2);
    expect(db.calls.get('1')).toBe(1);
    // Once they have lapsed, they make room.
    await views.read(String(MAX_LOCAL_VIEWS + 1), db.load, t0 + LOCAL_VIEW_MS);
    expect(views.size.views).toBe(1);
  });

  it("never shows this process's own change undone: forget drops the view and detaches a read in flight", async () => {
    const catalogue = new Map([['1', viewOf('1', 5)]]);
    const db = postgres(catalogue);
    const views = new LocalProductViews();
    await views.read('1', db.load, t0);
    const before = views.read('1', db.load, t0 + LOCAL_VIEW_MS);
    catalogue.set('1', viewOf('1', 4));
    views.forget('1');
    expect((await views.read('1', db.load, t0 + LOCAL_VIEW_MS + 1))?.stock).toBe(4);
    await before;
    expect((await views.read('1', db.load, t0 + LOCAL_VIEW_MS + 2))?.stock).toBe(4);
    expect(db.calls.get('1')).toBe(3);
  });

  it('keeps nothing of a failed read: the next reader asks again', async () => {
    const views = new LocalProductViews();
    const failing = jest.fn().mockRejectedValueOnce(new Error('Connection terminated')).mockResolvedValue(viewOf('1'));
    await expect(views.read('1', failing, t0)).rejects.toThrow('Connection terminated');
    expect((await views.read('1', failing, t0 + 1))?.id).toBe('1');
    expect(failing).toHaveBeenCalledTimes(2);
  });
});
