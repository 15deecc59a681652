import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { OPS_ROUTE } from '../metrics/ops-routes';
import { ReadinessProbe } from './readiness-probe';

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly probe: ReadinessProbe) {}

  /** Liveness only: answers while the process runs, whatever its dependencies do. */
  @Get('live')
  @ApiOperation({ summary: 'Liveness: 200 while the process runs (no dependency checks)' })
  @ApiOkResponse({ description: '{ "status": "ok" }' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Readiness for balancers, on the public port: up or down and nothing more. The reasons (which
   * dependency, its address, its error text) are for operators, on /health/details. Answered from
   * a probe at most a second old (readiness-probe.ts), never a query per call.
   */
  @Get()
  @ApiOperation({
    summary:
      'Readiness: 200 {"status":"ok"} when Postgres and Redis answered a probe at most 1 s old, else 503 {"status":"error"}',
  })
  @ApiOkResponse({ description: '{ "status": "ok" }' })
  @ApiServiceUnavailableResponse({ description: '{ "status": "error" }: Postgres or Redis did not answer' })
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ status: 'ok' | 'error' }> {
    if (await this.probe.ready()) return { status: 'ok' };
    void reply.status(HttpStatus.SERVICE_UNAVAILABLE);
    return { status: 'error' };
  }

  @Get('details')
  @HealthCheck()
  @RouteConfig(OPS_ROUTE)
  @ApiOperation({
    summary: 'Each dependency and why it is down (Terminus format); the METRICS_PORT listener, or PORT in development',
  })
  @ApiResponse({ status: 200, description: 'Terminus report: { status: "ok", info, error, details }' })
  @ApiServiceUnavailableResponse({ description: 'Terminus report with status "error"' })
  details() {
    return this.probe.checkNow();
  }
}
