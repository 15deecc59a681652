import { Counter, Gauge, Histogram, register } from 'prom-client';

/*
 * A metric is made once per process and then found by its name: the e2e tests build several apps
 * in one process, and prom-client refuses a second metric of the same name in its registry.
 */

/** The counter named `name`, made on first use. */
export function registeredCounter<L extends string = string>(
  name: string,
  help: string,
  labelNames: L[] = [],
): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames });
}

/** The gauge named `name`, made on first use. */
export function registeredGauge<L extends string = string>(name: string, help: string, labelNames: L[] = []): Gauge<L> {
  return (register.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames });
}

/** The histogram named `name` with these buckets, made on first use. */
export function registeredHistogram(name: string, help: string, buckets: number[]): Histogram {
  return (register.getSingleMetric(name) as Histogram | undefined) ?? new Histogram({ name, help, buckets });
}
