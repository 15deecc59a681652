/**
 * Which files of apps/api one purchase answered 201 runs code in, measured with V8's precise
 * coverage (call counts) around that one request of a real app in production's shape (the
 * operations routes on their own listener): they must be the files docs/ARCHITECTURE.md's walk
 * names, no more and no fewer, and no more than MAX_FILES. Two purchases are measured and only
 * the files both ran are counted, so that a background timer firing during one of them (the
 * event-loop lag probe, a metric) is not counted as the purchase's own.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { relative, resolve } from 'node:path';
import { AppHarness, startApp } from '../support/app-harness';
import { adminAuth, auth } from '../support/tokens';

jest.setTimeout(60_000);

const APP_SRC = resolve(__dirname, '../../apps/api/src');
const MAX_FILES = 26;

/** The files the table of docs/ARCHITECTURE.md's "One purchase, file by file" names, sorted. */
function filesTheWalkNames(): string[] {
  const doc = readFileSync(resolve(__dirname, '../../docs/ARCHITECTURE.md'), 'utf8');
  const walk = doc.slice(doc.indexOf('## One purchase, file by file'), doc.indexOf('## Where each decision is made'));
  return [...walk.matchAll(/^\| \d+ \| `([^`]+)` \|/gm)].map((row) => row[1]).sort();
}

interface FunctionCoverage {
  functionName: string;
  ranges: { count: number }[];
}

/** The apps/api files in which at least one function ran while `work` ran. */
async function filesRunBy(session: Session, work: () => Promise<void>): Promise<string[]> {
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await work();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set<string>();
  for (const script of result) {
    const path = script.url.replace(/^file:\/\//, '');
    if (!path.startsWith(APP_SRC)) continue;
    if ((script.functions as FunctionCoverage[]).some((fn) => fn.ranges[0]?.count > 0))
      files.add(relative(APP_SRC, path));
  }
  return [...files].sort();
}

describe('the path of one purchase', () => {
  let harness: AppHarness;
  let session: Session;
  let productId: string;

  beforeAll(async () => {
    // Production's shape: the operations routes on their own listener (METRICS_PORT), whose hooks
    // then see every request. Background jobs stay quiet so that only the purchase runs while it is measured.
    harness = await startApp({ METRICS_PORT: '0', ORDER_EXPIRY_INTERVAL_MS: '600000', WAITING_ROOM_TICK_MS: '10000' });
    const created = await harness.app.inject({
      method: 'POST',
      url: '/admin/products',
      headers: adminAuth(),
      payload: { sku: 'path-1', name: 'Path', priceCents: 100, stock: 100, perUserLimit: 5 },
    });
    productId = created.json<{ id: string }>().id;
    // A first purchase warms every cache a later one meets (sale terms, prepared statements).
    await harness.app.inject({
      method: 'POST',
      url: `/products/${productId}/purchase`,
      headers: auth('warm-up'),
      payload: { quantity: 1 },
    });
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  });

  afterAll(async () => {
    session?.disconnect();
    await harness?.close();
  });

  it(`runs code in the files ARCHITECTURE.md walks, at most ${MAX_FILES} of apps/api, for a purchase answered 201`, async () => {
    const statuses: number[] = [];
    const buy = (buyer: string) => async () => {
      const res = await harness.app.inject({
        method: 'POST',
        url: `/products/${productId}/purchase`,
        headers: auth(buyer),
        payload: { quantity: 1 },
      });
      statuses.push(res.statusCode);
    };
    const first = await filesRunBy(session, buy('buyer-1'));
    const second = new Set(await filesRunBy(session, buy('buyer-2')));
    const files = first.filter((file) => second.has(file));
    expect(statuses).toEqual([201, 201]);
    process.stdout.write(`purchase path (${files.length} files of apps/api/src):\n  ${files.join('\n  ')}\n`);
    expect(files.length).toBeLessThanOrEqual(MAX_FILES);
    expect(files).toEqual(filesTheWalkNames());
  });
});
