import { ownerToken } from './owner-token';

describe('ownerToken', () => {
  it('gives 32 hex characters, none repeated across several refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const token = ownerToken();
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      seen.add(token);
    }
    expect(seen.size).toBe(5000);
  });
});
