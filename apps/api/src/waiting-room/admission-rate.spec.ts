import { ServiceTimeModel } from '../product-queue/product-queue';
import { automaticRate } from './admission-rate';

/** Queues whose snapshots report these measured models. */
const queuesWith = (lines: Record<string, ServiceTimeModel>) => ({
  snapshot: (name: string) =>
    lines[name]
      ? {
          queued: 0,
          inFlight: undefined,
          batchMs: (n: number) => lines[name].batchMs(n),
          measuredBatches: lines[name].samples,
        }
      : undefined,
});
const noQueues = queuesWith({});

describe('automaticRate', () => {
  it('paces at half the full-batch purchase rate of the service-time prior before anything was sold', () => {
    const prior = new ServiceTimeModel();
    expect(automaticRate(noQueues, '42', 1)).toBe(Math.floor((0.5 * 256 * 1000) / prior.batchMs(256)));
  });

  it('follows the measured model of the product, per segment', () => {
    const slow = new ServiceTimeModel();
    for (let i = 0; i < 20; i++) slow.observe(i % 2 ? 10 : 100, i % 2 ? 60 : 510); // 10 ms + 5 ms a purchase
    const one = automaticRate(queuesWith({ 'stock:42': slow }), '42', 1);
    expect(one).toBe(Math.floor((0.5 * 256 * 1000) / slow.batchMs(256)));
    expect(one).toBeLessThan(automaticRate(noQueues, '42', 1));
    expect(automaticRate(queuesWith({ 'stock:42:0': slow, 'stock:42:1': slow }), '42', 2)).toBe(2 * one);
  });
});
