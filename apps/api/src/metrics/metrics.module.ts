import { Module } from '@nestjs/common';
import { collectDefaultMetrics, register } from 'prom-client';
import { MetricsController } from './metrics.controller';

let defaultsCollected = false;

@Module({ controllers: [MetricsController] })
export class MetricsModule {
  constructor() {
    // Process metrics (RSS, event-loop lag, GC) once per process, however many apps a test boots.
    if (!defaultsCollected && !register.getSingleMetric('process_resident_memory_bytes')) collectDefaultMetrics();
    defaultsCollected = true;
  }
}
