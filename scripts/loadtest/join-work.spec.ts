import { randomBytes } from 'node:crypto';
import { JoinWork, JoinWorkSubject } from '../../apps/api/src/waiting-room/join-work/join-work';
import { JoinWorkPool, joinWorkBase, newJoinWorkNonce, solveJoinWork } from './join-work';

// Long enough (tens of ms) that a thread's CPU clock, which may tick in whole jiffies, reads above 0.
const SQUARINGS = 150_000;

describe("the load test's join-work solver (the API's solveJoinWork, and its loop on worker threads)", () => {
  it("solves the API's challenge on a worker as solveJoinWork does, for its user and nonce, and the API accepts it", async () => {
    const server = new JoinWork(randomBytes(32));
    const subject: JoinWorkSubject = { productId: '42', seed: randomBytes(32), squarings: 1_000 };
    const now = Date.now();
    const puzzle = await server.challenge(subject, now);
    const pool = new JoinWorkPool(2);
    try {
      const nonce = newJoinWorkNonce();
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const solved = await pool.solve(puzzle, 'lt-run-7', 'person', nonce);
      expect(solved.work).toEqual(solveJoinWork(puzzle, 'lt-run-7', nonce));
      expect(await server.check(subject, 'lt-run-7', solved.work, now)).not.toBeNull();
      // Bound to its user: another account cannot join with it.
      expect(await server.check(subject, 'lt-run-8', solved.work, now)).toBeNull();

      // A nonce of the pool's own each time: several joins from one challenge, each good and its own.
      const [a, b] = await Promise.all([
        pool.solve(puzzle, 'lt-run-bot3', 'bot'),
        pool.solve(puzzle, 'lt-run-bot3', 'bot'),
      ]);
      expect(a.work.nonce).not.toBe(b.work.nonce);
      for (const { work } of [a, b]) {
        expect(work).toEqual(solveJoinWork(puzzle, 'lt-run-bot3', work.nonce));
        expect(await server.check(subject, 'lt-run-bot3', work, now)).not.toBeNull();
      }

      // No squarings: the solution is the base itself, x = H(challenge, nonce, user id) mod N.
      const base = await pool.solve({ ...puzzle, squarings: 0 }, 'lt-run-7', 'person', nonce);
      const n = BigInt(`0x${puzzle.modulus}`);
      expect(base.work.solution).toBe(joinWorkBase(puzzle.challenge, nonce, 'lt-run-7', n).x.toString(16));
    } finally {
      await pool.close();
    }
  });

  it('solves on worker threads with the same answers, the populations in turn, timing each on its thread', async () => {
    const pool = new JoinWorkPool(1);
    try {
      const puzzle = {
        challenge: 'w2.42.0.150000.sig',
        modulus: ((1n << 521n) - 1n).toString(16),
        squarings: SQUARINGS,
      };
      const done: string[] = [];
      const task = (who: 'person' | 'bot', name: string) =>
        pool.solve(puzzle, name, who).then((solved) => {
          done.push(name);
          return solved;
        });
      const results = await Promise.all([
        task('bot', 'bot-a'),
        task('bot', 'bot-b'),
        task('bot', 'bot-c'),
        task('person', 'person-d'),
        task('person', 'person-e'),
      ]);
      // A burst of bots does not hold the people up: after each bot, a waiting person.
      expect(done).toEqual(['bot-a', 'person-d', 'bot-b', 'person-e', 'bot-c']);
      const users = ['bot-a', 'bot-b', 'bot-c', 'person-d', 'person-e'];
      expect(results.map((r) => r.work)).toEqual(results.map((r, i) => solveJoinWork(puzzle, users[i], r.work.nonce)));
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
