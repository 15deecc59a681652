import { MAX_BODY_DEPTH, nestsDeeperThan } from './validation.pipe';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe('nestsDeeperThan', () => {
  it('accepts flat and moderately nested bodies', () => {
    expect(nestsDeeperThan({ quantity: 1 }, MAX_BODY_DEPTH)).toBe(false);
    expect(nestsDeeperThan({ a: nested(MAX_BODY_DEPTH - 1) }, MAX_BODY_DEPTH)).toBe(false);
  });

  it('finds nesting past the limit in arrays and objects without recursing', () => {
    expect(nestsDeeperThan({ quantity: nested(10_000) }, MAX_BODY_DEPTH)).toBe(true);
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 100_000; i++) deep = (deep.next = {}) as Record<string, unknown>;
    expect(nestsDeeperThan(root, MAX_BODY_DEPTH)).toBe(true);
  });
});
