import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { RedisHealthIndicator } from './redis.health';
import { ReadinessProbe } from './readiness-probe';
import { DatabaseReplication } from './database-replication';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [RedisHealthIndicator, ReadinessProbe, DatabaseReplication],
})
export class HealthModule {}
