import { ServiceTimeModel } from '../purchase-batches/service-time-model';
import { automaticRate } from './admission-rate';

/** Batchers that measured these models. */
const batchersWith = (lines: Record<string, ServiceTimeModel>) => ({ serviceTime: (name: string) => lines[name] });
const noBatchers = batchersWith({});

describe('automaticRate', () => {
  it('paces at half the full-batch purchase rate of the service-time prior before anything was sold', () => {
    const prior = new ServiceTimeModel();
    expect(automaticRate(noBatchers, '42', 1)).toBe(Math.floor((0.5 * 256 * 1000) / prior.batchMs(256)));
  });

  it('follows the measured model of the product, per segment', () => {
    const slow = new ServiceTimeModel();
    for (let i = 0; i < 20; i++) slow.observe(i % 2 ? 10 : 100, i % 2 ? 60 : 510); // 10 ms + 5 ms a purchase
    const one = automaticRate(batchersWith({ 'stock:42': slow }), '42', 1);
    expect(one).toBe(Math.floor((0.5 * 256 * 1000) / slow.batchMs(256)));
    expect(one).toBeLessThan(automaticRate(noBatchers, '42', 1));
    expect(automaticRate(batchersWith({ 'stock:42:0': slow, 'stock:42:1': slow }), '42', 2)).toBe(2 * one);
  });
});
