import { TurnBatcher } from './turn-batcher';

/** A sender that records its calls and answers each item doubled (or fails, or throws). */
function recordingSender(mode: 'ok' | 'reject' | 'throw' | 'short' = 'ok') {
  const calls: Array<{ group: string; items: number[] }> = [];
  const send = (group: string, items: number[]): Promise<number[]> => {
    calls.push({ group, items });
    if (mode === 'throw') throw new Error('defineCommand failed');
    if (mode === 'reject') return Promise.reject(new Error('Connection is closed.'));
    return Promise.resolve(items.slice(0, mode === 'short' ? items.length - 1 : items.length).map((n) => n * 2));
  };
  return { calls, send };
}

describe('TurnBatcher', () => {
  it('sends the items of one group arriving in one turn with one call, each getting its own result', async () => {
    const { calls, send } = recordingSender();
    const batcher = new TurnBatcher(send);
    const results = await Promise.all([3, 1, 7].map((n) => batcher.add('42', n)));
    expect(calls).toEqual([{ group: '42', items: [3, 1, 7] }]);
    expect(results).toEqual([6, 2, 14]);
  });

  it('keeps groups apart, and items of a later turn in a call of their own', async () => {
    const { calls, send } = recordingSender();
    const batcher = new TurnBatcher(send);
    await Promise.all([batcher.add('1', 1), batcher.add('2', 1), batcher.add('1', 2)]);
    await batcher.add('1', 3);
    expect(calls).toEqual([
      { group: '1', items: [1, 2] },
      { group: '2', items: [1] },
      { group: '1', items: [3] },
    ]);
  });

  it('sends at most 256 items per call', async () => {
    const { calls, send } = recordingSender();
    const batcher = new TurnBatcher(send);
    const results = await Promise.all(Array.from({ length: 600 }, (_, i) => batcher.add('p', i)));
    expect(calls.map((c) => c.items.length)).toEqual([256, 256, 88]);
    expect(results[599]).toBe(1198);
  });

  it.each(['reject', 'throw', 'short'] as const)(
    'hands a failed call (%s) to every item of it, and goes on',
    async (mode) => {
      const failing = recordingSender(mode);
      const batcher = new TurnBatcher(failing.send);
      const results = await Promise.allSettled([batcher.add('p', 1), batcher.add('p', 2)]);
      expect(results.map((r) => r.status)).toEqual(
        mode === 'short' ? ['fulfilled', 'rejected'] : ['rejected', 'rejected'],
      );
      expect(failing.calls).toHaveLength(1);
    },
  );
});
