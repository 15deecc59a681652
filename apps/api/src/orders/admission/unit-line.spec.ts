import { ServiceTimeModel } from './service-time';
import { UnitLine, Waiting } from './unit-line';

interface Item extends Waiting {
  name: string;
}

describe('UnitLine', () => {
  let clock = 0;
  let expired: string[];
  const item = (name: string, arrivedAt: number): Item => ({ name, arrivedAt, deadline: arrivedAt + 1000, reject: jest.fn() });
  const line = () => new UnitLine<Item>(new ServiceTimeModel(), () => 50, (items) => expired.push(...items.map((i) => i.name)), () => clock);

  beforeEach(() => {
    jest.useFakeTimers();
    clock = 0;
    expired = [];
  });
  afterEach(() => jest.useRealTimers());

  const advance = (ms: number) => {
    clock += ms;
    jest.advanceTimersByTime(ms);
  };

  it('serves purchases in order of arrival, even one that reached the queue late', () => {
    const queue = line();
    queue.add(item('b', 20));
    queue.add(item('c', 30));
    queue.add(item('a', 10));
    expect(queue.take(2).map((i) => i.name)).toEqual(['a', 'b']);
    expect(queue.take(2).map((i) => i.name)).toEqual(['c']);
  });

  it('answers queued purchases at their deadline (less the answer margin), not later', () => {
    const queue = line();
    queue.add(item('a', 0));
    queue.add(item('b', 400));
    advance(949);
    expect(expired).toEqual([]);
    advance(1);
    expect(expired).toEqual(['a']);
    expect(queue.length).toBe(1);
    advance(400);
    expect(expired).toEqual(['a', 'b']);
    expect(queue.length).toBe(0);
  });

  it('does not hand a batch a purchase whose deadline already passed', () => {
    const queue = line();
    queue.add(item('a', 0));
    queue.add(item('b', 500));
    clock = 960; // the timer has not run yet
    expect(queue.take(10).map((i) => i.name)).toEqual(['b']);
    expect(expired).toEqual(['a']);
  });

  it('answers at once the purchases with less time left than the batch needs, and batches the rest', () => {
    const queue = line();
    queue.add(item('a', 0));
    queue.add(item('b', 300));
    clock = 800; // a has 150 ms left before its answer margin, b 450 ms
    expect(queue.take(10, 200).map((i) => i.name)).toEqual(['b']);
    expect(expired).toEqual(['a']);
  });

  it('leaves no timer behind once empty', () => {
    const queue = line();
    queue.add(item('a', 0));
    queue.take(10);
    expect(jest.getTimerCount()).toBe(0);
  });
});
