import { Counter, Histogram, register as defaultRegistry, Registry } from 'prom-client';
import { LockEventSource, listenTo } from './lock-events';

const LABELS = ['key_prefix'] as const;
const SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The metric label of a key: its part before the first `:` (`stock:42` → `stock`), so that
 * the number of series stays bounded however many keys are locked.
 */
export function keyPrefixLabel(key: string): string {
  const colon = key.indexOf(':');
  return colon === -1 ? key : key.slice(0, colon);
}

// Two Nest apps in one process (tests, or several modules) share the default registry, and
// prom-client refuses a second metric of the same name: reuse the one already registered.
function histogram(registry: Registry, name: string, help: string): Histogram<(typeof LABELS)[number]> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Histogram<(typeof LABELS)[number]>;
  return new Histogram({ name, help, labelNames: LABELS, buckets: SECONDS_BUCKETS, registers: [registry] });
}

function counter(registry: Registry, name: string, help: string): Counter<(typeof LABELS)[number]> {
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<(typeof LABELS)[number]>;
  return new Counter({ name, help, labelNames: LABELS, registers: [registry] });
}

/**
 * Feeds Prometheus metrics from the lock core's events. Reentrant acquisitions are not counted:
 * they neither wait nor take anything from Redis. Returns a function that stops listening.
 */
export function recordLockMetrics(source: LockEventSource, registry: Registry = defaultRegistry): () => void {
  const wait = histogram(registry, 'lock_wait_seconds', 'Time from asking for a lock to holding it');
  const hold = histogram(registry, 'lock_hold_seconds', 'Time a lock was held, from acquire to release');
  const acquired = counter(registry, 'lock_acquired_total', 'Locks acquired (reentrant entries excluded)');
  const timeouts = counter(registry, 'lock_timeouts_total', 'Acquires that gave up after waitMs');
  const renewals = counter(registry, 'lock_renewals_total', 'Successful lease extensions');
  const renewalFailures = counter(registry, 'lock_renewal_failures_total', 'Lease extensions that failed');
  const lost = counter(registry, 'lock_lost_total', 'Locks lost while held (lease expired or taken)');
  const unavailable = counter(registry, 'lock_unavailable_total', 'Acquires that failed because Redis or the quorum was unreachable');
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
