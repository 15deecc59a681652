import { PurchaseDeadlines } from './purchase-deadline';

/** Keeps the event loop busy for `ms`: every timer due meanwhile runs that much late. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('PurchaseDeadlines', () => {
  const made: PurchaseDeadlines[] = [];
  const deadlinesOf = (deadlineMs: number): PurchaseDeadlines => {
    const deadlines = new PurchaseDeadlines(deadlineMs);
    made.push(deadlines);
    return deadlines;
  };
  afterEach(() => made.splice(0).forEach((deadlines) => deadlines.onModuleDestroy()));

  it('gives a purchase PURCHASE_DEADLINE_MS from its arrival', () => {
    expect(deadlinesOf(2000).deadlineOf(10_000)).toBe(12_000);
  });

  it('sets the cut-off the fixed answer margin before the deadline while the event loop is on time', () => {
    expect(deadlinesOf(2000).cutoff(12_000)).toBe(12_000 - 50);
  });

  it("moves the cut-off earlier by the event loop's lag, counted up to a quarter of the deadline", async () => {
    const deadlines = deadlinesOf(400);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await sleep(100);
    block(500);
    await sleep(1000); // the lag is read once a second
    expect(deadlines.cutoff(12_000)).toBe(12_000 - 50 - 400 / 4);
  });
});
