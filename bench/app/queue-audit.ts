import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import Redis from 'ioredis';
import { RedisServerProcess } from '../../test/support/redis-server';
import { auditChunks } from '../../apps/api/src/sale-audit/queue-audit';
import { readAuditedQueue, readTicketHashes } from '../../apps/api/src/sale-audit/queue-audit-reads';
import { adminActionHash } from '../../apps/api/src/sale-terms/admin-action-chain';
import { roundMessage, shuffleSeedOf } from '../../apps/api/src/sale-terms/beacon-round';
import { commitSale } from '../../apps/api/src/sale-terms/sale-commitment';
import { drawSaleSeed } from '../../apps/api/src/sale-terms/sale-seed';
import { rankPreQueue } from '../../apps/api/src/waiting-room/fair-order';
import { TicketSigner } from '../../apps/api/src/waiting-room/ticket-signer';
import { waitingRoomKeys } from '../../apps/api/src/waiting-room/waiting-room-keys';

/**
 * The audit file of a large sale, made and checked: on a private redis-server, a queue of
 * `--tickets` tickets (all taken before the start, so all shuffled; `--admitted` of them admitted,
 * 50 per admission step) is written as the join script and the leader leave it, then the app's own
 * audit code reads it and writes the file (HSCAN of the users, re-signing every ticket, the JSON),
 * and the independent verifier (scripts/queue-order, a child Node process, the beacon's BLS
 * signature included) checks it whole. Prints and saves the medians of `--runs` runs.
 *
 *   bash scripts/run-ts.sh bench/app/queue-audit.ts [--tickets 100000] [--admitted 20000] [--runs 3]
 */
const { values } = parseArgs({
  options: {
    tickets: { type: 'string', default: '100000' },
    admitted: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '3' },
    out: { type: 'string', default: 'reports/queue-audit.json' },
  },
});
const TICKETS = Number(values.tickets);
const ADMITTED = Number(values.admitted);
const RUNS = Number(values.runs);
const PRODUCT = '7';
const VERIFIER = join(__dirname, '../../scripts/queue-order/verify-queue-order.mjs');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const server = await RedisServerProcess.start();
  const redis = new Redis(server.url);
  const scratch = mkdtempSync(join(tmpdir(), 'queue-audit-'));
  try {
    const signer = new TicketSigner(Buffer.alloc(32, 7));
    const k = waitingRoomKeys('bench:', PRODUCT);
    const { secretKey } = bls12_381.shortSignatures.keygen();
    const chain = {
      publicKey: Buffer.from(bls12_381.shortSignatures.getPublicKey(secretKey).toBytes()).toString('hex'),
      genesisS: 1_700_000_000,
      periodS: 3,
    };
    const seed = drawSaleSeed();
    const commitment = commitSale({
      sku: 'BENCH',
      seed,
      saleStartsAtMs: Date.now(),
      preQueueS: 600,
      chain,
      nowMs: Date.now() - 60_000,
    });
    const round = commitment.beacon!.round;
    const signature = Buffer.from(
      bls12_381.shortSignatures.sign(bls12_381.shortSignatures.hash(roundMessage(round)), secretKey).toBytes(),
    ).toString('hex');
    const shuffleSeed = shuffleSeedOf(seed, signature);
    await fillQueue(redis, k, shuffleSeed);
    const create = {
      seq: 1,
      at: new Date().toISOString(),
      action: 'create',
      details: { stock: ADMITTED },
      prevHash: commitment.hash,
    };
    const adminActions = [{ ...create, hash: adminActionHash(create) }];

    const produced: number[] = [];
    const verified: number[] = [];
    let bytes = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const queue = await readAuditedQueue(redis, k);
      const hashes = await readTicketHashes(redis, k, signer, {
        productId: PRODUCT,
        epoch: queue.epoch,
        seq: queue.seq,
      });
      const draw = { beacon: 'VERIFIED' as const, round, signature, shuffleSeed };
      const chunks = [
        ...auditChunks({
          productId: PRODUCT,
          nowMs: Date.now(),
          commitment,
          seed,
          draw,
          queue,
          ticketHash: (n) => hashes[n] ?? null,
          adminActions,
        }),
      ];
      produced.push(performance.now() - started);
      const file = join(scratch, 'audit.json');
      writeFileSync(file, chunks.join(''));
      bytes = chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk), 0);
      const checkStarted = performance.now();
      const check = spawnSync(process.execPath, [VERIFIER, '--audit', file, '--sale-commitment', commitment.hash], {
        encoding: 'utf8',
      });
      verified.push(performance.now() - checkStarted);
      if (check.status !== 0) throw new Error(`the verifier refused the file: ${check.stderr}`);
    }
    const result = {
      tickets: TICKETS,
      admitted: ADMITTED,
      runs: RUNS,
      fileBytes: bytes,
      produceMs: Math.round(median(produced)),
      verifyMs: Math.round(median(verified)),
      produceRunsMs: produced.map(Math.round),
      verifyRunsMs: verified.map(Math.round),
    };
    writeFileSync(values.out!, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `audit file of ${TICKETS} tickets (${(bytes / 1e6).toFixed(1)} MB): produced in ${result.produceMs} ms, verified in ${result.verifyMs} ms (medians of ${RUNS}; ${values.out})\n`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    redis.disconnect();
    await server.stop();
  }
}

/** The queue as joins and the leader leave it: users, counters, the start's shuffle, the admission log. */
async function fillQueue(redis: Redis, k: ReturnType<typeof waitingRoomKeys>, shuffleSeed: Buffer): Promise<void> {
  for (let from = 1; from <= TICKETS; from += 5000) {
    const pairs: string[] = [];
    for (let n = from; n < from + 5000 && n <= TICKETS; n++) pairs.push(`user-${n}`, String(n));
    await redis.hset(k.users, ...pairs);
  }
  await redis.set(k.ranks, await rankPreQueue(shuffleSeed, TICKETS));
  const steps: string[] = [];
  for (let place = 1, at = Date.now(); place <= ADMITTED; place += 50, at += 100)
    steps.push(`${place}:${Math.min(place + 49, ADMITTED)}:${at}`);
  for (let i = 0; i < steps.length; i += 1000) await redis.rpush(k.admissions, ...steps.slice(i, i + 1000));
  await redis.hset(k.meta, 'epoch', 'bench1', 'seq', TICKETS, 'pre', TICKETS, 'served', ADMITTED, 'ranked', '1');
}

void main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
