/**
 * What the waiting room's join work costs: the server per challenge and per check, the client per
 * solve, and their ratio. A pure-function measurement on one core (no server, no Redis):
 *   bash scripts/run-ts.sh bench/join-work-cost.ts [T ...]
 * joinWorkCost() is the per-T figure, also printed by the app bench's join-work cell.
 */
import { constants, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';
import { JoinWork, JoinWorkSubject } from '../apps/api/src/waiting-room/join-work/join-work';
import { solveJoinWork } from '../apps/api/src/waiting-room/join-work/solve';
import { bigIntToBytes, deriveTrapdoor, modPow } from '../apps/api/src/waiting-room/join-work/trapdoor';

const perCall = (runs: number, work: (i: number) => unknown): number => {
  for (let i = 0; i < Math.min(runs, 200); i++) work(i); // warm-up
  const started = process.hrtime.bigint();
  for (let i = 0; i < runs; i++) work(i);
  return Number(process.hrtime.bigint() - started) / 1e3 / runs; // µs
};
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** One T's figures, each the mean of many calls on this thread (the solve: one, timed whole). */
export interface JoinWorkCost {
  squarings: number;
  /** The client: solveJoinWork, BigInt, one solve (its base's two SHA-512s included). */
  solveMs: number;
  /** The server: handing out the sale's challenge of the minute (memory, after the first of the minute). */
  issueUs: number;
  /** The server: checking a right solution (the trapdoor's exponentiation), and a wrong one. */
  checkUs: number;
  refuseUs: number;
}

/** Solves and checks work of T squarings, in process; `work` and `seed` made afresh when absent. */
export async function joinWorkCost(
  squarings: number,
  { work = new JoinWork(randomBytes(32)), seed = randomBytes(32) }: { work?: JoinWork; seed?: Buffer } = {},
): Promise<JoinWorkCost> {
  const subject: JoinWorkSubject = { productId: '1', seed, squarings };
  const now = Date.now();
  const puzzle = await work.challenge(subject, now);
  let started = performance.now();
  for (let i = 0; i < 20_000; i++) await work.challenge(subject, now);
  const issueUs = ((performance.now() - started) * 1e3) / 20_000;
  started = performance.now();
  const answer = solveJoinWork(puzzle, 'user-1');
  const solveMs = performance.now() - started;
  if (!(await work.check(subject, 'user-1', answer, now))) throw new Error('the solution did not check');
  const wrong = { ...answer, solution: (BigInt(`0x${answer.solution}`) ^ 1n).toString(16) };
  const runs = 5_000;
  started = performance.now();
  for (let i = 0; i < runs; i++) await work.check(subject, 'user-1', answer, now);
  const checkUs = ((performance.now() - started) * 1e3) / runs;
  started = performance.now();
  for (let i = 0; i < runs; i++) await work.check(subject, 'user-1', wrong, now);
  const refuseUs = ((performance.now() - started) * 1e3) / runs;
  return { squarings, solveMs, issueUs, checkUs, refuseUs };
}

async function main(): Promise<void> {
  const squaringsList = process.argv
    .slice(2)
    .map(Number)
    .filter((t) => t > 0);
  const ts = squaringsList.length ? squaringsList : [10_000, 100_000, 300_000];
  const key = randomBytes(32);
  const seed = randomBytes(32);
  const work = new JoinWork(key);

  let started = performance.now();
  const trapdoor = await work.trapdoor({ productId: '1', seed });
  console.log(
    `trapdoor (a 320-bit and a 704-bit prime from the DRBG): ${fixed(performance.now() - started)} ms, once per sale and instance`,
  );
  started = performance.now();
  await deriveTrapdoor(key, '2', seed);
  console.log(`  another: ${fixed(performance.now() - started)} ms`);

  // One exponentiation mod the check prime (its exponent 2^T mod (p-1) as long as p), two ways,
  // and, through the same OpenSSL call, what one of 512 bits (an even split of N) would cost.
  const xs = Array.from({ length: 256 }, () => BigInt(`0x${randomBytes(128).toString('hex')}`) % trapdoor.n);
  const checkPrime = trapdoor.p;
  const e = modPow(2n, 100_000n, checkPrime - 1n);
  const bigintUs = perCall(50, (i) => modPow(xs[i % 256], e, checkPrime));
  const answerUs = perCall(2_000, (i) => trapdoor.answerModP(xs[i % 256], 100_000));
  const p512 = BigInt(`0x${randomBytes(64).toString('hex')}`) | (3n << 510n) | 1n;
  const rsa512 = createPublicKey({
    key: {
      kty: 'RSA',
      n: bigIntToBytes(p512, 64).toString('base64url'),
      e: bigIntToBytes(modPow(2n, 100_000n, p512 - 1n), 64).toString('base64url'),
    },
    format: 'jwk',
  });
  const rsa512Us = perCall(2_000, (i) =>
    publicEncrypt({ key: rsa512, padding: constants.RSA_NO_PADDING }, bigIntToBytes(xs[i % 256] % p512, 64)),
  );
  console.log(`one exponentiation mod the ${checkPrime.toString(2).length}-bit check prime (exponent as long):`);
  console.log(`  BigInt square-and-multiply: ${fixed(bigintUs)} µs`);
  console.log(`  OpenSSL, an RSA public key's raw operation (Trapdoor.answerModP): ${fixed(answerUs)} µs`);
  console.log(`  the same at 512 bits (N split evenly): ${fixed(rsa512Us)} µs`);

  for (const squarings of ts) {
    const cost = await joinWorkCost(squarings, { work, seed });
    console.log(
      `T=${squarings}: solve ${fixed(cost.solveMs, 0)} ms (${fixed((cost.solveMs * 1e3) / squarings, 2)} µs/squaring, BigInt); ` +
        `server: challenge ${fixed(cost.issueUs)} µs, check ${fixed(cost.checkUs, 2)} µs (a wrong solution ${fixed(cost.refuseUs, 2)} µs); ` +
        `solve/check ${fixed((cost.solveMs * 1e3) / cost.checkUs, 0)}x, solve/(challenge+check) ${fixed((cost.solveMs * 1e3) / (cost.issueUs + cost.checkUs), 0)}x`,
    );
  }
}

if (require.main === module) void main();
