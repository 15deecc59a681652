import { randomBytes } from 'node:crypto';
import { CHALLENGE_TTL_MS, CHALLENGE_WINDOW_MS, challengeCacheControl, JoinWork, JoinWorkSubject } from './join-work';
import { joinWorkBase, solveJoinWork } from './solve';
import { deriveTrapdoor, HmacDrbg, modPow } from './trapdoor';

describe('join work (a time-lock puzzle)', () => {
  const key = randomBytes(32);
  const work = new JoinWork(key);
  const seed = randomBytes(32);
  const subject: JoinWorkSubject = { productId: '42', seed, squarings: 1_000 };
  const user = 'user-1';
  const now = Date.now();

  const solved = async (of: JoinWorkSubject = subject, at = now, userId = user) => {
    const puzzle = await work.challenge(of, at);
    return { puzzle, answer: solveJoinWork(puzzle, userId) };
  };

  it("accepts a solved challenge and names the solution by its user, nonce and the minute's challenge", async () => {
    const { puzzle, answer } = await solved();
    expect(puzzle.squarings).toBe(1_000);
    expect(BigInt(`0x${puzzle.modulus}`).toString(2)).toHaveLength(1024);
    const minute = now - (now % CHALLENGE_WINDOW_MS);
    expect(Date.parse(puzzle.expiresAt)).toBe(minute + CHALLENGE_WINDOW_MS + CHALLENGE_TTL_MS + 25);
    const checked = await work.check(subject, user, answer, now);
    const { name } = joinWorkBase(puzzle.challenge, answer.nonce, user, BigInt(`0x${puzzle.modulus}`));
    expect(checked).toEqual({ nonce: name, expiresAtMs: Date.parse(puzzle.expiresAt) });
  });

  it('serves one challenge to everyone in a minute and a new one the next minute', async () => {
    const minute = now - (now % CHALLENGE_WINDOW_MS);
    const first = await work.challenge(subject, minute);
    expect(await work.challenge(subject, minute + CHALLENGE_WINDOW_MS - 1)).toEqual(first);
    const next = await work.challenge(subject, minute + CHALLENGE_WINDOW_MS);
    expect(next.challenge).not.toBe(first.challenge);
    expect(next.modulus).toBe(first.modulus);
    expect(challengeCacheControl(minute + 59_001)).toBe('public, max-age=1');
    expect(challengeCacheControl(minute)).toBe('public, max-age=60');
  });

  it('accepts the solution in upper case, with 0x or leading zeros (the same number)', async () => {
    const { answer } = await solved();
    for (const solution of [answer.solution.toUpperCase(), `0x${answer.solution}`, `000${answer.solution}`])
      expect(await work.check(subject, user, { ...answer, solution }, now)).not.toBeNull();
  });

  it('refuses a wrong solution, one more or one fewer squaring, and the base itself', async () => {
    const { puzzle, answer } = await solved();
    const n = BigInt(`0x${puzzle.modulus}`);
    const y = BigInt(`0x${answer.solution}`);
    const x = joinWorkBase(puzzle.challenge, answer.nonce, user, n).x;
    const fewer = modPow(x, 2n ** 999n, n);
    for (const wrong of [(y + 1n) % n, (y * y) % n, fewer, x, y + n, 0n])
      expect(await work.check(subject, user, { ...answer, solution: wrong.toString(16) }, now)).toBeNull();
    for (const garbage of ['', 'zz', '-1', 'f'.repeat(2000)])
      expect(await work.check(subject, user, { ...answer, solution: garbage }, now)).toBeNull();
  });

  it("refuses another user's solution, another nonce's, another product's, sale's or T's, and an expired one", async () => {
    const { answer, puzzle } = await solved();
    expect(await work.check(subject, 'user-2', answer, now)).toBeNull();
    expect(await work.check(subject, user, { ...answer, nonce: `${answer.nonce}A` }, now)).toBeNull();
    expect(await work.check({ ...subject, productId: '43' }, user, answer, now)).toBeNull();
    expect(await work.check({ ...subject, squarings: 1_001 }, user, answer, now)).toBeNull();
    expect(await work.check({ ...subject, seed: randomBytes(32) }, user, answer, now)).toBeNull();
    const expiry = Date.parse(puzzle.expiresAt);
    expect(await work.check(subject, user, answer, expiry - 1)).not.toBeNull();
    expect(await work.check(subject, user, answer, expiry)).toBeNull();
  });

  it('refuses a nonce out of its form, an altered or future challenge, and one signed by another key', async () => {
    const { answer } = await solved();
    for (const nonce of ['', 'short', 'has space in it!!', 'x'.repeat(44)])
      expect(await work.check(subject, user, { ...answer, nonce }, now)).toBeNull();
    const fields = answer.challenge.split('.');
    const later = [...fields.slice(0, 2), String(Number(fields[2]) + 60_000), ...fields.slice(3)].join('.');
    expect(await work.check(subject, user, { ...answer, challenge: later }, now + 200_000)).toBeNull();
    // A minute's challenge, even genuine, joins only from that minute on (less 5 s of clock skew
    // between instances).
    const minute = now - (now % CHALLENGE_WINDOW_MS) + CHALLENGE_WINDOW_MS;
    const early = solveJoinWork(await work.challenge(subject, minute), user);
    expect(await work.check(subject, user, early, minute - 5_001)).toBeNull();
    expect(await work.check(subject, user, early, minute - 5_000)).not.toBeNull();
    expect(await new JoinWork(randomBytes(32)).check(subject, user, answer, now)).toBeNull();
    for (const challenge of ['', 'w2', `${answer.challenge}x`, answer.challenge.replace('w2', 'w1')])
      expect(await work.check(subject, user, { ...answer, challenge }, now)).toBeNull();
  });

  it('gives each nonce its own base and name (single use is claimed by the caller)', async () => {
    const { puzzle } = await solved();
    const n = BigInt(`0x${puzzle.modulus}`);
    const a = joinWorkBase(puzzle.challenge, 'AAAAAAAAAAAAAAAA', user, n);
    const b = joinWorkBase(puzzle.challenge, 'AAAAAAAAAAAAAAAB', user, n);
    const c = joinWorkBase(puzzle.challenge, 'AAAAAAAAAAAAAAAA', 'user-2', n);
    expect(new Set([a.x, b.x, c.x]).size).toBe(3);
    expect(new Set([a.name, b.name, c.name]).size).toBe(3);
  });

  it('derives the same modulus on every instance (same key, product, seed) and another per sale', async () => {
    const again = await new JoinWork(key).challenge(subject, now);
    expect(again).toEqual(await work.challenge(subject, now));
    expect((await work.challenge({ ...subject, seed: randomBytes(32) }, now)).modulus).not.toBe(again.modulus);
    expect((await work.challenge({ ...subject, productId: '43' }, now)).modulus).not.toBe(again.modulus);
  });

  it("answers by the trapdoor exactly what T squarings give (OpenSSL's exponentiation against BigInt's)", async () => {
    const trapdoor = await deriveTrapdoor(key, '7', seed);
    const random = () => BigInt(`0x${randomBytes(128).toString('hex')}`) % trapdoor.n;
    for (const squarings of [1, 2, 17, 1_000, 99_991])
      for (const x of [random(), random(), 0n, 1n, trapdoor.n - 1n])
        expect(trapdoor.answerModP(x, squarings)).toBe(trapdoor.modP(modPow(x, 2n ** BigInt(squarings), trapdoor.n)));
  });

  it('draws from an HMAC-DRBG that is deterministic per seed material', () => {
    const a = new HmacDrbg(Buffer.from('e'), Buffer.from('n')).generate(80);
    expect(new HmacDrbg(Buffer.from('e'), Buffer.from('n')).generate(80)).toEqual(a);
    expect(new HmacDrbg(Buffer.from('e'), Buffer.from('m')).generate(80)).not.toEqual(a);
  });
});
