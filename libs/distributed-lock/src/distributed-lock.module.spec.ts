import { Injectable, Module } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { register, Registry } from 'prom-client';
import { RedisServerProcess } from '../../../test/support/redis-server';
import { CurrentLock } from './current-lock';
import { DistributedLock } from './distributed-lock';
import { DistributedLockModule } from './distributed-lock.module';
import { DistributedLockService } from './distributed-lock.service';
import { WithLock } from './with-lock.decorator';

const REDIS_URL = Symbol('REDIS_URL');

@Module({ providers: [{ provide: REDIS_URL, useFactory: () => server.url }], exports: [REDIS_URL] })
class UrlModule {}

@Injectable()
class Reservations {
  constructor(private readonly current: CurrentLock) {}

  @WithLock('stock:<productId>', { waitMs: 2000 })
  async reserve(input: { productId: string }): Promise<{ outer: number; inner: number }> {
    return { outer: this.current.fence, inner: await this.recount(input) };
  }

  @WithLock('stock:<productId>', { waitMs: 2000 })
  async recount(_input: { productId: string }): Promise<number> {
    return this.current.fence;
  }
}

@Module({ providers: [Reservations] })
class FeatureModule {}

let server: RedisServerProcess;
const createdClients: Redis[] = [];

function newClient(url: string): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  createdClients.push(client);
  return client;
}

async function startApp(options: { registry?: Registry; client?: Redis } = {}): Promise<NestFastifyApplication> {
  const lockModule = DistributedLockModule.forRootAsync({
    imports: [UrlModule],
    inject: [REDIS_URL],
    useFactory: (url: string) => ({
      ...(options.client ? { redis: options.client } : { redisFactory: () => newClient(url) }),
      defaultTtlMs: 5000,
      metrics: options.registry ? { registry: options.registry } : true,
    }),
  });
  const moduleRef = await Test.createTestingModule({ imports: [lockModule, FeatureModule] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
  await app.init();
  return app;
}

describe('DistributedLockModule on a real Redis', () => {
  beforeAll(async () => {
    server = await RedisServerProcess.start();
  });
  afterAll(() => server.stop());

  it('is global: a feature module locks with @WithLock and re-enters from a nested one', async () => {
    const app = await startApp({ registry: new Registry() });
    try {
      const { outer, inner } = await app.get(Reservations).reserve({ productId: 'p1' });
      expect(typeof outer).toBe('number');
      expect(inner).toBe(outer);
      const next = await app.get(Reservations).reserve({ productId: 'p1' });
      expect(next.outer).toBeGreaterThan(outer);
    } finally {
      await app.close();
    }
  });

  it('updates the Prometheus metrics from the real core', async () => {
    const registry = new Registry();
    const app = await startApp({ registry });
    try {
      await app.get(Reservations).reserve({ productId: 'p2' });
      const text = await registry.metrics();
      expect(text).toMatch(/lock_acquired_total\{key_prefix="stock"\} 1/);
      expect(text).toMatch(/lock_hold_seconds_count\{key_prefix="stock"\} 1/);
    } finally {
      await app.close();
    }
  });

  it('lets two apps share the default registry, both counting into it', async () => {
    const acquiredCount = async (): Promise<number> => {
      const metric = (await register.getSingleMetric('lock_acquired_total')?.get())?.values.find(
        (v) => v.labels.key_prefix === 'shared',
      );
      return metric?.value ?? 0;
    };
    const before = await acquiredCount();
    const first = await startApp();
    const second = await startApp();
    try {
      await first.get(DistributedLockService).using('shared:a', {}, async () => undefined);
      await second.get(DistributedLockService).using('shared:b', {}, async () => undefined);
      expect(await acquiredCount()).toBe(before + 2);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('releases held locks and quits the connections it created on shutdown', async () => {
    const app = await startApp({ registry: new Registry() });
    await app.get(DistributedLockService).acquire('stock:held', { ttlMs: 60_000 });
    const created = createdClients[createdClients.length - 1];
    const ended = new Promise((resolve) => created.once('end', resolve));
    await app.close();
    await ended;

    const client = server.client();
    const other = new DistributedLock(client);
    try {
      const lock = await other.tryAcquire('stock:held');
      expect(lock).not.toBeNull();
      await lock?.release();
    } finally {
      await other.close();
      client.disconnect();
    }
  });

  it('passes every core option through, maxLocalHandoffs included', async () => {
    const client = server.client();
    const moduleRef = await Test.createTestingModule({
      imports: [DistributedLockModule.forRoot({ redis: client, metrics: false, prefix: 'opts:', maxLocalHandoffs: 0 })],
    }).compile();
    const locks = moduleRef.get(DistributedLockService);
    try {
      const held = await locks.acquire('k');
      // With no local handoffs, a second waiter of this process queues in Redis, not in the process.
      const waiting = locks.acquire('k', { waitMs: 5000 });
      for (let i = 0; i < 200 && (await client.llen('opts:{k}#queue')) === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(await client.llen('opts:{k}#queue')).toBe(1);
      await held.release();
      await (await waiting).release();
    } finally {
      await moduleRef.close();
      client.disconnect();
    }
  });

  it('leaves a client the application passed in open', async () => {
    const client = server.client();
    const app = await startApp({ registry: new Registry(), client });
    await app.close();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
  });
});
