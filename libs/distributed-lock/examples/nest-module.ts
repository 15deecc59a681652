// README:begin
import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { Redis } from 'ioredis';
import { DistributedLockModule } from '@flash-sale/distributed-lock';

@Module({
  imports: [
    ConfigModule.forRoot(),
    DistributedLockModule.forRootAsync({
      imports: [ConfigModule],
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        redisFactory: () =>
          new Redis(config.getOrThrow<string>('REDIS_URL'), {
            autoResendUnfulfilledCommands: false,
            commandTimeout: 2000,
          }),
        defaultTtlMs: 5000,
        defaultWaitMs: 3000,
      }),
    }),
  ],
})
export class AppModule {}
// README:end

import 'reflect-metadata';
import { strict as assert } from 'node:assert';
import { NestFactory } from '@nestjs/core';
import { DistributedLockService } from '@flash-sale/distributed-lock';

async function main(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const locks = app.get(DistributedLockService);
  const lock = await locks.acquire('stock:nest-module');
  assert.equal(await locks.tryAcquire('stock:nest-module'), null, 'the lock is held');
  await lock.release();
  await app.close(); // quits the connection redisFactory made
}

main().then(
  () => console.log('  ok   nest-module.ts'),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
