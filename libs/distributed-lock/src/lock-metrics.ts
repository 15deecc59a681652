import type { Counter, Histogram, Registry } from 'prom-client';
import { listenTo, type LockEngine } from './lock';

// prom-client is an optional peer dependency: it is loaded when metrics are recorded, and its
// types stay out of every declaration the package exports.
type PromClient = typeof import('prom-client');

/** prom-client if the application has it installed, else undefined. */
export function loadPromClient(): PromClient | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('prom-client') as PromClient;
  } catch {
    return undefined;
  }
}

/**
 * A prom-client `Registry`. Typed by shape, so that this library's types and code load without
 * prom-client, an optional peer dependency: only recording metrics needs it.
 */
export interface MetricsRegistry {
  getSingleMetric(name: string): unknown;
}

const LABELS = ['key_prefix'] as const;
type Label = (typeof LABELS)[number];
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The metric label of a key: its part before the first `:` (`stock:42` → `stock`), so that
 * the number of series stays bounded however many keys are locked.
 */
export function keyPrefixLabel(key: string): string {
  const colon = key.indexOf(':');
  return colon === -1 ? key : key.slice(0, colon);
}

/**
 * Feeds Prometheus metrics from the lock core's events, into `registry` or prom-client's default
 * one. Reentrant acquisitions are not counted: they neither wait nor take anything from Redis.
 * Returns a function that stops listening. Needs prom-client installed.
 */
export function recordLockMetrics(
  source: Pick<LockEngine, 'on' | 'off'>,
  metricsRegistry?: MetricsRegistry,
): () => void {
  const prom = loadPromClient();
  if (!prom) throw new Error('lock metrics need prom-client: install it, or turn metrics off (metrics: false)');
  const registry = (metricsRegistry ?? prom.register) as Registry;
  // Two Nest apps in one process (tests, or several modules) share the default registry, and
  // prom-client refuses a second metric of the same name: reuse the one already registered.
  const histogram = (name: string, help: string) =>
    (registry.getSingleMetric(name) as Histogram<Label> | undefined) ??
    new prom.Histogram({ name, help, labelNames: LABELS, buckets: SECONDS_BUCKETS, registers: [registry] });
  const counter = (name: string, help: string) =>
    (registry.getSingleMetric(name) as Counter<Label> | undefined) ??
    new prom.Counter({ name, help, labelNames: LABELS, registers: [registry] });
  const wait = histogram('lock_wait_seconds', 'Time from asking for a lock to holding it');
  const hold = histogram('lock_hold_seconds', 'Time a lock was held, from acquire to release');
  const acquired = counter('lock_acquired_total', 'Locks acquired (reentrant entries excluded)');
  const timeouts = counter('lock_timeouts_total', 'Acquires that gave up after waitMs');
  const renewals = counter('lock_renewals_total', 'Successful lease extensions');
  const renewalFailures = counter('lock_renewal_failures_total', 'Lease extensions that failed');
  const lost = counter('lock_lost_total', 'Locks lost while held (lease expired or taken)');
  const unavailable = counter(
    'lock_unavailable_total',
    'Acquires that failed because Redis or the quorum was unreachable',
  );
  const label = (key: string) => ({ key_prefix: keyPrefixLabel(key) });

  return listenTo(source, {
    acquired: ({ key, waitMs, reentrant }) => {
      if (reentrant) return;
      acquired.inc(label(key));
      wait.observe(label(key), waitMs / 1000);
    },
    released: ({ key, holdMs, wasHeld }) => {
      if (wasHeld) hold.observe(label(key), holdMs / 1000);
    },
    extended: ({ key }) => renewals.inc(label(key)),
    renewalFailed: ({ key }) => renewalFailures.inc(label(key)),
    lost: ({ key }) => lost.inc(label(key)),
    timeout: ({ key }) => timeouts.inc(label(key)),
    unavailable: ({ key }) => unavailable.inc(label(key)),
  });
}
