import { ReplyDeadlines } from './reply-deadlines';
import { now } from './timing';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ReplyDeadlines', () => {
  it('expires each deadline once it is due, not before, and forgets it', async () => {
    const deadlines = new ReplyDeadlines();
    const expired: string[] = [];
    const start = now();
    deadlines.add(start + 80, () => expired.push('late'));
    deadlines.add(start + 20, () => expired.push('early')); // earlier than the armed timer: re-arms
    await sleep(50);
    expect(expired).toEqual(['early']);
    await sleep(60);
    expect(expired).toEqual(['early', 'late']);
    expect(deadlines.size).toBe(0);
  });

  it('never expires a removed deadline; removing twice changes nothing', async () => {
    const deadlines = new ReplyDeadlines();
    const expired: string[] = [];
    const start = now();
    const first = deadlines.add(start + 10, () => expired.push('first'));
    const middle = deadlines.add(start + 10, () => expired.push('middle'));
    deadlines.add(start + 10, () => expired.push('last'));
    deadlines.remove(middle);
    deadlines.remove(middle);
    deadlines.remove(first);
    expect(deadlines.size).toBe(1);
    await sleep(40);
    expect(expired).toEqual(['last']);
  });

  it('keeps serving deadlines added after the list emptied', async () => {
    const deadlines = new ReplyDeadlines();
    const expired: number[] = [];
    deadlines.remove(deadlines.add(now() + 5, () => expired.push(0)));
    await sleep(20);
    deadlines.add(now() + 5, () => expired.push(1));
    await sleep(30);
    expect(expired).toEqual([1]);
  });
});
