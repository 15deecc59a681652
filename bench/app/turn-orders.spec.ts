import { everyOrder } from './turn-orders';

describe('everyOrder', () => {
  it('lists each permutation once', () => {
    const orders = everyOrder(3);
    expect(orders).toHaveLength(6);
    expect(new Set(orders.map((o) => o.join())).size).toBe(6);
    for (const order of orders) expect([...order].sort()).toEqual([0, 1, 2]);
  });

  it('puts each load in each position, and right after each other load, equally often', () => {
    const orders = everyOrder(3);
    const positions = new Map<string, number>();
    const follows = new Map<string, number>();
    for (const order of orders) {
      order.forEach((load, at) => {
        positions.set(`${load}@${at}`, (positions.get(`${load}@${at}`) ?? 0) + 1);
        if (at > 0) follows.set(`${order[at - 1]}>${load}`, (follows.get(`${order[at - 1]}>${load}`) ?? 0) + 1);
      });
    }
    expect(new Set(positions.values())).toEqual(new Set([2]));
    expect(follows.size).toBe(6);
    expect(new Set(follows.values())).toEqual(new Set([2]));
  });

  it('handles the trivial counts', () => {
    expect(everyOrder(1)).toEqual([[0]]);
    expect(everyOrder(0)).toEqual([[]]);
  });
});
