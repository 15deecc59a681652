import { EventEmitter } from 'node:events';
import { Registry } from 'prom-client';
import { keyPrefixLabel, recordLockMetrics } from './lock-metrics';

async function valueOf(registry: Registry, name: string, prefix: string, suffix = ''): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const sample = (
    metric?.values as Array<{ metricName?: string; labels: Record<string, unknown>; value: number }> | undefined
  )?.find((v) => v.labels.key_prefix === prefix && (suffix === '' || v.metricName === `${name}${suffix}`));
  return sample?.value;
}

describe('lock metrics', () => {
  let registry: Registry;
  let core: EventEmitter;

  beforeEach(() => {
    registry = new Registry();
    core = new EventEmitter();
  });

  it('labels a key by its part before the first colon, never the whole key', () => {
    expect(keyPrefixLabel('stock:42')).toBe('stock');
    expect(keyPrefixLabel('stock:42:segment:3')).toBe('stock');
    expect(keyPrefixLabel('nightly-job')).toBe('nightly-job');
  });

  it('registers every lock metric', async () => {
    recordLockMetrics(core, registry);
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual(
      [
        'lock_acquired_total',
        'lock_hold_seconds',
        'lock_lost_total',
        'lock_renewal_failures_total',
        'lock_renewals_total',
        'lock_timeouts_total',
        'lock_unavailable_total',
        'lock_wait_seconds',
      ].sort(),
    );
  });

  it('updates counters and histograms from the core events', async () => {
    recordLockMetrics(core, registry);
    core.emit('acquired', { key: 'stock:1', waitMs: 20, fence: 1, reentrant: false });
    core.emit('acquired', { key: 'stock:1', waitMs: 0, fence: 1, reentrant: true });
    core.emit('released', { key: 'stock:1', holdMs: 1500, wasHeld: true });
    core.emit('extended', { key: 'stock:1', ttlMs: 5000 });
    core.emit('renewalFailed', { key: 'stock:2', error: new Error('x') });
    core.emit('lost', { key: 'stock:2', holdMs: 9000 });
    core.emit('timeout', { key: 'order:9', waitMs: 3000 });
    core.emit('unavailable', { key: 'order:9', error: new Error('down') });

    expect(await valueOf(registry, 'lock_acquired_total', 'stock')).toBe(1);
    expect(await valueOf(registry, 'lock_wait_seconds', 'stock', '_count')).toBe(1);
    expect(await valueOf(registry, 'lock_wait_seconds', 'stock', '_sum')).toBeCloseTo(0.02);
    expect(await valueOf(registry, 'lock_hold_seconds', 'stock', '_sum')).toBeCloseTo(1.5);
    expect(await valueOf(registry, 'lock_renewals_total', 'stock')).toBe(1);
    expect(await valueOf(registry, 'lock_renewal_failures_total', 'stock')).toBe(1);
    expect(await valueOf(registry, 'lock_lost_total', 'stock')).toBe(1);
    expect(await valueOf(registry, 'lock_timeouts_total', 'order')).toBe(1);
    expect(await valueOf(registry, 'lock_unavailable_total', 'order')).toBe(1);
  });

  it('reuses the metrics already in a registry instead of failing on a second app', async () => {
    const stopFirst = recordLockMetrics(core, registry);
    const second = new EventEmitter();
    expect(() => recordLockMetrics(second, registry)).not.toThrow();
    second.emit('timeout', { key: 'stock:1', waitMs: 1 });
    core.emit('timeout', { key: 'stock:1', waitMs: 1 });
    expect(await valueOf(registry, 'lock_timeouts_total', 'stock')).toBe(2);
    stopFirst();
    core.emit('timeout', { key: 'stock:1', waitMs: 1 });
    expect(await valueOf(registry, 'lock_timeouts_total', 'stock')).toBe(2);
    expect(core.listenerCount('timeout')).toBe(0);
  });
});
