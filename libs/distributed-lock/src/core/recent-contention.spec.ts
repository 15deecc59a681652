import { RecentContention } from './recent-contention';

describe('RecentContention', () => {
  it('knows nothing of a key never refused', () => {
    expect(new RecentContention().isContended('stock:1', 0)).toBe(false);
  });

  it('remembers a refused key for a while, then forgets it', () => {
    const recent = new RecentContention(2000);
    recent.refused('stock:1', 1000);
    expect(recent.isContended('stock:1', 1500)).toBe(true);
    expect(recent.isContended('stock:1', 3000)).toBe(true);
    expect(recent.isContended('stock:2', 1500)).toBe(false);
    expect(recent.isContended('stock:1', 3001)).toBe(false);
    expect(recent.isContended('stock:1', 3002)).toBe(false);
  });

  it('a refusal again keeps a hot key remembered', () => {
    const recent = new RecentContention(2000);
    recent.refused('stock:1', 0);
    recent.refused('stock:1', 1900);
    expect(recent.isContended('stock:1', 3500)).toBe(true);
  });

  it('holds at most its capacity, forgetting the key refused longest ago', () => {
    const recent = new RecentContention(10_000, 2);
    recent.refused('a', 1);
    recent.refused('b', 2);
    recent.refused('a', 3);
    recent.refused('c', 4);
    expect(recent.isContended('b', 5)).toBe(false);
    expect(recent.isContended('a', 5)).toBe(true);
    expect(recent.isContended('c', 5)).toBe(true);
  });
});
