import { clusterSlot } from './backends/cluster-slot';
import { LockNaming } from './lock-names';

describe('LockNaming', () => {
  it('gives every key of an instance one fence counter that no lock name can equal', () => {
    const naming = new LockNaming('lock:', true);
    const [a, b] = [naming.namesOf('stock:1'), naming.namesOf('order:9')];
    expect(a.fence).toBe('lock:#fence');
    expect(b.fence).toBe(a.fence);
    expect(a.scriptKeys).toEqual(['lock:{stock:1}', 'lock:#fence', 'lock:{stock:1}#queue', 'lock:{stock:1}#waiters']);
    expect(new LockNaming('lock:', false).namesOf('#fence').lock).toBe('lock:%23fence');
  });

  it('on a Cluster, gives each key the counter of its own slot', () => {
    const naming = new LockNaming('lock:', true, true);
    for (const key of ['stock:1', 'stock:2', 'order:9', '{shared}:a', '{shared}:b', 'x'.repeat(200)]) {
      const names = naming.namesOf(key);
      expect(clusterSlot(names.fence)).toBe(clusterSlot(names.lock));
      for (const name of names.scriptKeys) expect(clusterSlot(name)).toBe(clusterSlot(names.lock));
      expect(names.fence).toMatch(/^lock:\{[0-9a-z]+\}#fence$/);
    }
    expect(naming.namesOf('{shared}:a').fence).toBe(naming.namesOf('{shared}:b').fence);
    expect(naming.namesOf('stock:1').fence).not.toBe(naming.namesOf('stock:2').fence);
  });
});
