import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { OPS_ROUTE } from '../metrics/ops-routes';
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
  @ApiOkResponse({ description: '{ "status": "ok" }' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness for balancers, on the public port: up or down and nothing more. The reasons (which
   * dependency, its address, its error text) are for operators, on /health/details.
   */
  @Get()
  @ApiOperation({ summary: 'Readiness: 200 {"status":"ok"} when Postgres and Redis answer, else 503 {"status":"error"}' })
  @ApiOkResponse({ description: '{ "status": "ok" }' })
  @ApiServiceUnavailableResponse({ description: '{ "status": "error" }: Postgres or Redis did not answer' })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ status: 'ok' | 'error' }> {
    try {
      await this.runChecks();
      return { status: 'ok' };
    } catch {
      void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
      return { status: 'error' };
    }
  }

  @Get('details')
  @HealthCheck()
  @RouteConfig(OPS_ROUTE)
  @ApiOperation({ summary: 'Each dependency and why it is down (Terminus format); the METRICS_PORT listener, or PORT in development' })
  @ApiResponse({ status: 200, description: 'Terminus report: { status: "ok", info, error, details }' })
  @ApiServiceUnavailableResponse({ description: 'Terminus report with status "error"' })
  details() {
    return this.runChecks();
  }

  private runChecks() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 1500 }), () => this.redis.check()]);
  }
}
