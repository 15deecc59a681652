import { JoinWorkPool, solveJoinWork } from './join-work';

// Long enough (tens of ms) that a thread's CPU clock, which may tick in whole jiffies, reads above 0.
const SQUARINGS = 150_000;

describe("the load test's join-work solver (the API's solveJoinWork, and its loop on worker threads)", () => {
  it('computes base^(2^squarings) mod modulus by sequential squarings, as hex', () => {
    // 2^(2^3) = 256 = 69 (0x45) mod 187
    expect(solveJoinWork({ modulus: 'bb', base: '2', squarings: 3 })).toBe('45');
    expect(solveJoinWork({ modulus: 'bb', base: '2', squarings: 0 })).toBe('2');
    const n = (1n << 127n) - 1n; // a Mersenne prime: x^(2^k) cycles through the group
    const x = 0x1234567890abcdefn;
    let y = x;
    for (let i = 0; i < 1000; i++) y = (y * y) % n;
    expect(solveJoinWork({ modulus: n.toString(16), base: x.toString(16), squarings: 1000 })).toBe(y.toString(16));
  });

  it('solves on worker threads with the same answers, the populations in turn, timing each on its thread', async () => {
    const pool = new JoinWorkPool(1);
    try {
      const modulus = ((1n << 521n) - 1n).toString(16);
      const done: string[] = [];
      const task = (who: 'person' | 'bot', name: string, base: string) =>
        pool.solve({ modulus, base, squarings: SQUARINGS }, who).then((solved) => {
          done.push(name);
          return solved;
        });
      const results = await Promise.all([
        task('bot', 'bot-a', '3'),
        task('bot', 'bot-b', '5'),
        task('bot', 'bot-c', '6'),
        task('person', 'person-d', '7'),
        task('person', 'person-e', '8'),
      ]);
      // A burst of bots does not hold the people up: after each bot, a waiting person.
      expect(done).toEqual(['bot-a', 'person-d', 'bot-b', 'person-e', 'bot-c']);
      expect(results.map((r) => r.solution)).toEqual(
        ['3', '5', '6', '7', '8'].map((base) => solveJoinWork({ modulus, base, squarings: SQUARINGS })),
      );
      for (const r of results) {
        expect(r.cpuMs).toBeGreaterThan(0);
        expect(r.wallMs).toBeGreaterThan(0);
      }
      expect(results[2].queueMs).toBeGreaterThan(results[3].queueMs);
    } finally {
      await pool.close();
    }
  });
});
