import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { RedisServerProcess } from '../../test/support/redis-server';
import { RedisKeyPrefix } from '../../apps/api/src/common/redis/redis-keys';
import { drawSaleSeed } from '../../apps/api/src/sale-terms/sale-seed';
import { rankPreQueue } from '../../apps/api/src/waiting-room/fair-order';
import { QueueStore } from '../../apps/api/src/waiting-room/queue-store';

/**
 * `npm run bench:waiting-room`: Redis memory per queued buyer. On a private redis-server, joins
 * `--buyers` users to one product's queue through the app's own join script, then reads
 * MEMORY USAGE of every key of the queue and INFO memory's used_memory before and after.
 * Two shapes: a queue joined after the start (arrival order), and a pre-queue of the same size
 * shuffled at the start (its places string adds 4 bytes a ticket). User ids are short
 * (`u1234567`) or UUIDs (36 characters), since the join-idempotency hash holds them.
 */
const { values } = parseArgs({ options: { buyers: { type: 'string', default: '200000' }, out: { type: 'string', default: 'reports/waiting-room-memory.json' } } });
const BUYERS = Number(values.buyers);
const BATCH = 2000;

type IdShape = 'short' | 'uuid';
const userId = (shape: IdShape, i: number): string =>
  shape === 'short' ? `u${String(i).padStart(7, '0')}` : `${i.toString(16).padStart(8, '0')}-4b1d-4c2e-9f3a-${(i * 7919).toString(16).padStart(12, '0')}`;

interface Row {
  queue: 'arrival order' | 'pre-queue';
  ids: IdShape;
  buyers: number;
  memoryUsageBytes: number;
  usedMemoryDeltaBytes: number;
  perBuyerMemoryUsage: number;
  perBuyerUsedMemory: number;
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

async function measure(redis: Redis, store: QueueStore, productId: string, queue: Row['queue'], ids: IdShape): Promise<Row> {
  await redis.flushall();
  const before = await usedMemory(redis);
  // Pre-queue: every join comes before the start (an hour away); arrival order: the queue opened at once.
  const startsAt = queue === 'pre-queue' ? Date.now() + 3_600_000 : null;
  for (let from = 0; from < BUYERS; from += BATCH) {
    const joins = [];
    for (let i = from; i < Math.min(from + BATCH, BUYERS); i++) joins.push(store.join(productId, userId(ids, i), Date.now(), startsAt));
    await Promise.all(joins);
  }
  if (queue === 'pre-queue') {
    const { pre } = await store.freeze(productId);
    await store.writeRanks(productId, await rankPreQueue(drawSaleSeed(), pre));
  }
  const keys = await redis.keys('*');
  let memoryUsageBytes = 0;
  for (const key of keys) memoryUsageBytes += Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
  const usedMemoryDeltaBytes = (await usedMemory(redis)) - before;
  return { queue, ids, buyers: BUYERS, memoryUsageBytes, usedMemoryDeltaBytes, perBuyerMemoryUsage: memoryUsageBytes / BUYERS, perBuyerUsedMemory: usedMemoryDeltaBytes / BUYERS };
}

async function main(): Promise<void> {
  const server = await RedisServerProcess.start();
  const redis = server.client();
  try {
    const store = new QueueStore(redis, { value: 'fs:' } as RedisKeyPrefix);
    const version = /redis_version:(\S+)/.exec(await redis.info('server'))![1];
    const rows: Row[] = [];
    for (const queue of ['arrival order', 'pre-queue'] as const) for (const ids of ['short', 'uuid'] as const) rows.push(await measure(redis, store, '42', queue, ids));
    console.log(`Redis ${version}, ${BUYERS} buyers queued for one product\n`);
    console.log('| queue | user ids | MEMORY USAGE, all keys | per buyer | used_memory delta | per buyer |');
    console.log('|---|---|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(`| ${r.queue} | ${r.ids} | ${(r.memoryUsageBytes / 1e6).toFixed(2)} MB | ${r.perBuyerMemoryUsage.toFixed(1)} B | ${(r.usedMemoryDeltaBytes / 1e6).toFixed(2)} MB | ${r.perBuyerUsedMemory.toFixed(1)} B |`);
    }
    mkdirSync(values.out.replace(/\/[^/]+$/, ''), { recursive: true });
    writeFileSync(values.out, JSON.stringify({ redisVersion: version, rows }, null, 2));
  } finally {
    redis.disconnect();
    await server.stop();
  }
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
