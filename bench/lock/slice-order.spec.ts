import { sliceOrder } from './slice-order';

describe('sliceOrder', () => {
  it('gives every round a permutation of the contenders, the same in every run', () => {
    for (let round = 0; round < 20; round++) {
      expect([...sliceOrder(9, round)].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(sliceOrder(9, round)).toEqual(sliceOrder(9, round));
    }
    expect(sliceOrder(1, 0)).toEqual([0]);
    expect(sliceOrder(2, 1)).toEqual([1, 0]);
  });

  it('runs the compared pair (0 and 1) back to back, each first in every other round', () => {
    for (let round = 0; round < 18; round++) {
      const order = sliceOrder(9, round);
      const first = Math.min(order.indexOf(0), order.indexOf(1));
      expect(order.slice(first, first + 2)).toEqual(round % 2 === 0 ? [0, 1] : [1, 0]);
    }
  });

  it('runs a compared group of three back to back, each first once in three rounds', () => {
    const groups = [0, 1, 2].map((round) => {
      const order = sliceOrder(9, round, 3);
      const first = Math.min(order.indexOf(0), order.indexOf(1), order.indexOf(2));
      expect([...order].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      return order.slice(first, first + 3);
    });
    expect(groups).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
    ]);
  });

  it('puts the pair and the others after different neighbours from round to round', () => {
    for (const contender of [0, 1, 2, 5]) {
      const predecessors = new Set<number>();
      for (let round = 0; round < 18; round++) {
        const order = sliceOrder(9, round);
        const at = order.indexOf(contender);
        if (at > 0) predecessors.add(order[at - 1]);
      }
      expect(predecessors.size).toBeGreaterThanOrEqual(5);
    }
  });
});
