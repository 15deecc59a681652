import { sliceOrder } from './slice-order';

describe('sliceOrder', () => {
  it('gives every round a permutation of the contenders, the same in every run', () => {
    for (let round = 0; round < 20; round++) {
      expect([...sliceOrder(9, round)].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      expect(sliceOrder(9, round)).toEqual(sliceOrder(9, round));
    }
  });

  it('puts a contender after different neighbours from round to round', () => {
    const predecessors = new Set<number>();
    for (let round = 0; round < 18; round++) {
      const order = sliceOrder(9, round);
      const at = order.indexOf(1);
      if (at > 0) predecessors.add(order[at - 1]);
    }
    expect(predecessors.size).toBeGreaterThanOrEqual(5);
  });
});
