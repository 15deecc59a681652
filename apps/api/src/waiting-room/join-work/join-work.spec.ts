import { randomBytes } from 'node:crypto';
import { JoinWork, JoinWorkSubject } from './join-work';
import { solveJoinWork } from './solve';
import { deriveTrapdoor, HmacDrbg, modPow } from './trapdoor';

describe('join work (a time-lock puzzle)', () => {
  const key = randomBytes(32);
  const work = new JoinWork(key);
  const seed = randomBytes(32);
  const subject: JoinWorkSubject = { productId: '42', seed, userTag: 'AAAAAAAAAAAAAAAA', squarings: 1_000 };
  const now = Date.now();

  const solved = async (of: JoinWorkSubject = subject, at = now) => {
    const puzzle = await work.challenge(of, at);
    return { puzzle, answer: { challenge: puzzle.challenge, solution: solveJoinWork(puzzle) } };
  };

  it('accepts a solved challenge and names its nonce and expiry', async () => {
    const { puzzle, answer } = await solved();
    expect(puzzle.squarings).toBe(1_000);
    expect(BigInt(`0x${puzzle.modulus}`).toString(2)).toHaveLength(1024);
    expect(Date.parse(puzzle.expiresAt)).toBeGreaterThan(now + 119_000);
    const checked = await work.check(subject, answer, now);
    expect(checked).toEqual({ nonce: puzzle.challenge.split('.')[5], expiresAtMs: Date.parse(puzzle.expiresAt) });
  });

  it('accepts the solution in upper case, with 0x or leading zeros (the same number)', async () => {
    const { answer } = await solved();
    for (const solution of [answer.solution.toUpperCase(), `0x${answer.solution}`, `000${answer.solution}`])
      expect(await work.check(subject, { ...answer, solution }, now)).not.toBeNull();
  });

  it('refuses a wrong solution, one more or one fewer squaring, and the base itself', async () => {
    const { puzzle, answer } = await solved();
    const n = BigInt(`0x${puzzle.modulus}`);
    const y = BigInt(`0x${answer.solution}`);
    for (const wrong of [(y + 1n) % n, (y * y) % n, BigInt(`0x${puzzle.base}`), y + n, 0n])
      expect(await work.check(subject, { ...answer, solution: wrong.toString(16) }, now)).toBeNull();
    for (const garbage of ['', 'zz', '-1', 'f'.repeat(2000)])
      expect(await work.check(subject, { ...answer, solution: garbage }, now)).toBeNull();
  });

  it("refuses another user's, another product's, another T's and an expired challenge", async () => {
    const { answer } = await solved();
    expect(await work.check({ ...subject, userTag: 'BBBBBBBBBBBBBBBB' }, answer, now)).toBeNull();
    expect(await work.check({ ...subject, productId: '43' }, answer, now)).toBeNull();
    expect(await work.check({ ...subject, squarings: 1_001 }, answer, now)).toBeNull();
    expect(await work.check({ ...subject, seed: randomBytes(32) }, answer, now)).toBeNull();
    expect(await work.check(subject, answer, now + 200_000)).toBeNull();
  });

  it('refuses an altered challenge, and one signed by another key', async () => {
    const { answer } = await solved();
    const fields = answer.challenge.split('.');
    const later = [...fields.slice(0, 3), String(Number(fields[3]) + 60_000), ...fields.slice(4)].join('.');
    expect(await work.check(subject, { ...answer, challenge: later }, now)).toBeNull();
    expect(await new JoinWork(randomBytes(32)).check(subject, answer, now)).toBeNull();
    for (const challenge of ['', 'w1', `${answer.challenge}x`, answer.challenge.replace('w1', 'w2')])
      expect(await work.check(subject, { ...answer, challenge }, now)).toBeNull();
  });

  it('gives each challenge its own nonce and base (single use is claimed by the caller)', async () => {
    const [a, b] = await Promise.all([solved(), solved()]);
    expect(a.puzzle.challenge.split('.')[5]).not.toBe(b.puzzle.challenge.split('.')[5]);
    expect(a.puzzle.base).not.toBe(b.puzzle.base);
  });

  it('derives the same modulus on every instance (same key, product, seed) and another per sale', async () => {
    const again = await new JoinWork(key).challenge(subject, now);
    expect(again.modulus).toBe((await work.challenge(subject, now)).modulus);
    expect((await work.challenge({ ...subject, seed: randomBytes(32) }, now)).modulus).not.toBe(again.modulus);
    expect((await work.challenge({ ...subject, productId: '43' }, now)).modulus).not.toBe(again.modulus);
  });

  it("answers by the trapdoor exactly what T squarings give (OpenSSL's exponentiation against BigInt's)", async () => {
    const trapdoor = await deriveTrapdoor(key, '7', seed);
    for (const squarings of [1, 2, 17, 1_000, 99_991]) {
      const x = BigInt(`0x${randomBytes(128).toString('hex')}`) % trapdoor.n;
      expect(trapdoor.answerModP(x, squarings)).toBe(trapdoor.modP(modPow(x, 2n ** BigInt(squarings), trapdoor.n)));
    }
  });

  it('draws from an HMAC-DRBG that is deterministic per seed material', () => {
    const a = new HmacDrbg(Buffer.from('e'), Buffer.from('n')).generate(80);
    expect(new HmacDrbg(Buffer.from('e'), Buffer.from('n')).generate(80)).toEqual(a);
    expect(new HmacDrbg(Buffer.from('e'), Buffer.from('m')).generate(80)).not.toEqual(a);
  });
});
