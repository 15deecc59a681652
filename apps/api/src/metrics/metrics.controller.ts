import { Controller, Get, Header } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { register } from 'prom-client';
import { Public } from '../auth/auth.decorators';
import { OPS_ROUTE } from './ops-routes';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  @Get()
  @Public()
  @RouteConfig(OPS_ROUTE)
  @Header('Content-Type', register.contentType)
  @ApiProduces('text/plain')
  @ApiOperation({
    summary:
      'Prometheus metrics: lock waits/holds/renewals/losses, purchases by outcome, HTTP latency (the METRICS_PORT listener, or PORT in development)',
  })
  @ApiOkResponse({ description: 'Prometheus text format' })
  metrics(): Promise<string> {
    return register.metrics();
  }
}
