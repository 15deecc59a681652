import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { register } from 'prom-client';
import { Public } from '../auth/auth.decorators';

@ApiTags('operations')
@Controller('metrics')
export class MetricsController {
  @Get()
  @Public()
  @Header('Content-Type', register.contentType)
  @ApiProduces('text/plain')
  @ApiOperation({ summary: 'Prometheus metrics: lock waits/holds/renewals/losses, purchases by outcome, HTTP latency' })
  metrics(): Promise<string> {
    return register.metrics();
  }
}
