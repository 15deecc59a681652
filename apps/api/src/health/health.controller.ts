import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import { RedisHealthIndicator } from './redis.health';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  /** Liveness only: answers while the process runs, whatever its dependencies do. */
  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process runs (no dependency checks)' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get()
  @HealthCheck()
  @ApiOperation({ summary: 'Liveness and readiness: 200 when Postgres and Redis answer, else 503' })
  check() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 1500 }), () => this.redis.check()]);
  }
}
