import { Module } from '@nestjs/common';
import { collectDefaultMetrics, register } from 'prom-client';
import { MetricsController } from './metrics.controller';

@Module({ controllers: [MetricsController] })
export class MetricsModule {
  constructor() {
    // Process metrics (RSS, event-loop lag, GC) once per registry, however many apps a test boots.
    if (!register.getSingleMetric('process_resident_memory_bytes')) collectDefaultMetrics();
  }
}
