import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { serveStorefront, Storefront } from '../../examples/storefront/serve';
import { injectSender, sleep } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { browserTests, CHROMIUM_ARGS } from '../support/chromium';
import { BeaconServer } from '../support/beacon-server';
import { fetchAudit } from '../support/queue-audit';
import { adminAuth, token } from '../support/tokens';
import { eventually, WaitingRoomClient } from '../support/waiting-room-client';

const BROWSER_TEST_MS = 60_000;
const SCREENSHOTS = 'reports/storefront';

/**
 * The storefront example in headless Chromium, on its own origin, selling a product that has a
 * waiting room: the page joins, shows the shopper's place and wait, polls when the API says to,
 * and buys with the admission once admitted; or tells the shopper it sold out or the turn passed.
 */
const { browserPath, itInBrowser } = browserTests('the storefront waiting-room browser test');

describe('storefront in a browser, a product sold through a waiting room', () => {
  let shop: Storefront;
  let harness: AppHarness;
  let room: WaitingRoomClient;
  let apiUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let beacon: BeaconServer;

  beforeAll(async () => {
    if (!browserPath) return;
    shop = await serveStorefront();
    // A beacon of the test's own (its BLS key, 1 s rounds): a sale with a start mixes in its round.
    beacon = await BeaconServer.start(1);
    harness = await startApp({ CORS_ORIGINS: shop.origin, WAITING_ROOM_TICK_MS: '100', ...beacon.env(1500) });
    await harness.app.listen(0, '127.0.0.1');
    apiUrl = `http://127.0.0.1:${(harness.app.getHttpServer().address() as AddressInfo).port}`;
    room = new WaitingRoomClient(injectSender(harness.app));
    browser = await chromium.launch({ executablePath: browserPath, args: CHROMIUM_ARGS });
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await shop?.close();
    await beacon?.stop();
  });

  beforeEach(async () => {
    if (browserPath) context = await browser.newContext();
  });
  afterEach(() => context?.close());

  const open = async (product: string, shopper: string): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(shop.pageUrl({ api: apiUrl, product, token: token(shopper) }));
    await page.waitForSelector('#join:not([disabled])');
    return page;
  };
  const queueShown = (page: Page) =>
    page.$eval('#queue', (el) => ({ state: el.getAttribute('data-state'), position: Number(el.getAttribute('data-position')), message: el.querySelector('#queue-message')?.textContent ?? '' }));
  const ordersOf = async (productId: string, userId: string) => (await room.api.listOrders(adminAuth(), { productId })).body.items.filter((order) => order.userId === userId);

  itInBrowser('shows the place and wait, polls at pollAfterMs, then buys with the admission (201)', async () => {
    // One admission a second, three shoppers ahead: the page's shopper waits a few seconds.
    const product = await room.createProduct({ name: 'Queued console', stock: 10, perUserLimit: 1, waitingRoom: { admitPerSecond: 1 } });
    // The page first (loading Chromium's page takes a while, and admissions run meanwhile), then
    // the three ahead and at once the page's join: it lands behind at least two still waiting.
    const page = await open(product.id, 'queued-shopper');
    // Every join and poll of the page: when the browser sent it (its own clock, not when this
    // process heard of it) and the pollAfterMs its answer gave (the page must not ask again sooner).
    const queueCalls: Array<Promise<{ method: string; sentAt: number; pollAfterMs: number }>> = [];
    page.on('response', (response) => {
      const request = response.request();
      if (!/\/queue(\/|$)/.test(new URL(response.url()).pathname) || request.method() === 'OPTIONS') return;
      const sentAt = request.timing().startTime;
      queueCalls.push(response.json().then((body: { pollAfterMs?: number }) => ({ method: request.method(), sentAt, pollAfterMs: body.pollAfterMs ?? 0 }), () => ({ method: request.method(), sentAt, pollAfterMs: 0 })));
    });
    for (const ahead of ['ahead-1', 'ahead-2', 'ahead-3']) await room.joined(product.id, ahead);
    await expect(page.isDisabled('#buy')).resolves.toBe(true);
    await page.click('#join');
    await page.waitForSelector('#queue[data-state="WAITING"]');
    const waiting = await queueShown(page);
    expect(waiting.position).toBeGreaterThanOrEqual(2);
    expect(waiting.message).toMatch(new RegExp(`^You are number ${waiting.position} in line\\. Estimated wait: about \\d+ (s|min)\\.$`));
    await expect(page.textContent('#queue-position')).resolves.toBe(String(waiting.position));
    await expect(page.isDisabled('#buy')).resolves.toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/queue-waiting.png` });

    await page.waitForSelector('#queue[data-state="ADMITTED"]', { timeout: 20_000 });
    expect((await queueShown(page)).message).toMatch(/^It's your turn: buy before /);
    await page.screenshot({ path: `${SCREENSHOTS}/queue-admitted.png` });
    // The calls up to the admission (after a purchase the page polls at once, to show BOUGHT).
    const callsWhileQueued = queueCalls.length;
    await page.click('#buy');
    await page.waitForSelector('#outcome[data-state="ok"]');
    await expect(page.getAttribute('#outcome', 'data-status')).resolves.toBe('201');
    await page.waitForSelector('#queue[data-state="BOUGHT"]');
    expect(await ordersOf(product.id, 'queued-shopper')).toHaveLength(1);

    // The page polled while it waited, and never before the API's pollAfterMs (timer slack aside):
    // each call was sent at least the previous answer's pollAfterMs after the previous call.
    const calls = (await Promise.all(queueCalls.slice(0, callsWhileQueued))).sort((a, b) => a.sentAt - b.sentAt);
    expect(calls.map((c) => c.method)).toEqual(['POST', ...calls.slice(1).map(() => 'GET')]);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    const gaps = calls.slice(1).map((call, i) => ({ gap: call.sentAt - calls[i].sentAt, wanted: calls[i].pollAfterMs }));
    for (const { gap, wanted } of gaps) expect(gap).toBeGreaterThanOrEqual(wanted - 50);
  }, BROWSER_TEST_MS);

  itInBrowser('shows the shopper their place after the start, verified against the commitment the page showed before the join', async () => {
    const startsAt = Date.now() + 4000;
    const product = await room.createProduct({ name: 'Fair drop', stock: 2, perUserLimit: 1, saleStartsAt: new Date(startsAt).toISOString(), waitingRoom: { admitPerSecond: 1, preQueueS: 600 } });
    const commitment = (product as unknown as { saleCommitment: { hash: string } }).saleCommitment.hash;
    const page = await open(product.id, 'fair-shopper');
    await expect(page.textContent('#queue-commitment')).resolves.toBe(commitment);
    for (const other of ['fair-1', 'fair-2', 'fair-3', 'fair-4', 'fair-5']) await room.joined(product.id, other);
    await page.click('#join');
    await page.waitForSelector('#queue[data-state="WAITING"]');
    await page.click('#verify');
    await page.waitForSelector('#verified[data-state="pending"]'); // nothing to verify before the start
    await sleep(startsAt - Date.now());
    await eventually(async () => (await fetchAudit(room.send, product.id)).file.reveal !== null, 10_000, 'the draw');

    await page.click('#verify');
    await page.waitForSelector('#verified[data-state="verified"]');
    // The place the page verified is the audit file's for the shopper's own ticket (joining again gives it back).
    const mine = await room.joined(product.id, 'fair-shopper');
    const { file } = await fetchAudit(room.send, product.id);
    const row = file.tickets.find((t) => t.ticketId === mine.ticketId)!;
    await expect(page.getAttribute('#verified', 'data-place')).resolves.toBe(String(row.place));
    await expect(page.getAttribute('#verified', 'data-beacon')).resolves.toBe('VERIFIED');
    await expect(page.textContent('#verified')).resolves.toMatch(new RegExp(`^Verified: you were place ${row.place} in the queue \\(ticket ${mine.ticketId}\\)`));
    await page.screenshot({ path: `${SCREENSHOTS}/queue-verified.png` });
  }, BROWSER_TEST_MS);

  itInBrowser('solves the proof of work a waiting room asks (waitingRoom.joinWork) in the page, joins with it and buys', async () => {
    const product = await room.createProduct({ name: 'Guarded game', stock: 5, perUserLimit: 1, waitingRoom: { admitPerSecond: 20, joinWork: { squarings: 20_000 } } as never });
    const page = await open(product.id, 'working-shopper');
    // The challenge is a public GET (no token: the sale's, the same for every page in its minute);
    // the join carries it with the page's nonce and solution.
    const calls: Array<{ call: 'challenge' | 'join'; status: number; authorization?: string; body: string | null }> = [];
    page.on('response', (response) => {
      const request = response.request();
      const path = new URL(response.url()).pathname;
      const call = request.method() === 'GET' && path.endsWith('/queue/challenge') ? 'challenge' : request.method() === 'POST' && path.endsWith('/queue') ? 'join' : null;
      if (call) calls.push({ call, status: response.status(), authorization: request.headers().authorization, body: request.postData() });
    });
    await page.click('#join');
    await page.waitForSelector('#queue[data-state="ADMITTED"]', { timeout: 20_000 });
    expect(calls.map((c) => [c.call, c.status])).toEqual([['challenge', 200], ['join', 200]]);
    expect(calls[0].authorization).toBeUndefined();
    expect(JSON.parse(calls[1].body ?? '{}')).toEqual({ work: { challenge: expect.any(String), nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), solution: expect.stringMatching(/^[0-9a-f]+$/) } });
    await page.click('#buy');
    await page.waitForSelector('#outcome[data-state="ok"]');
    expect(await ordersOf(product.id, 'working-shopper')).toHaveLength(1);
  }, BROWSER_TEST_MS);

  itInBrowser('tells a waiting shopper SOLD_OUT once the last unit sells, and refuses a new join (409)', async () => {
    const product = await room.createProduct({ name: 'Last lamp', stock: 1, perUserLimit: 1, waitingRoom: { admitPerSecond: 5 } });
    const front = await room.joined(product.id, 'lamp-front');
    const page = await open(product.id, 'lamp-behind');
    await page.click('#join');
    await page.waitForSelector('#queue[data-state="WAITING"]');
    const admitted = await room.until(product.id, front.ticket, ['ADMITTED']);
    expect((await room.purchase(product.id, 'lamp-front', admitted.admission)).status).toBe(201);
    await page.waitForSelector('#queue[data-state="SOLD_OUT"]', { timeout: 10_000 });
    expect((await queueShown(page)).message).toMatch(/^Sold out/);
    await expect(page.isDisabled('#buy')).resolves.toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}/queue-sold-out.png` });

    const late = await open(product.id, 'lamp-late');
    await late.click('#join');
    await late.waitForSelector('#outcome[data-state="refused"]');
    await expect(late.getAttribute('#outcome', 'data-code')).resolves.toBe('SOLD_OUT');
  }, BROWSER_TEST_MS);

  itInBrowser('tells an admitted shopper who did not buy in time that the turn passed (EXPIRED)', async () => {
    const product = await room.createProduct({ name: 'Brief offer', stock: 5, perUserLimit: 1, waitingRoom: { admitPerSecond: 10, admissionTtlS: 1 } });
    const page = await open(product.id, 'slow-shopper');
    await page.click('#join');
    await page.waitForSelector('#queue[data-state="ADMITTED"]');
    await page.waitForSelector('#queue[data-state="EXPIRED"]', { timeout: 15_000 });
    expect((await queueShown(page)).message).toMatch(/^Your turn passed/);
    await expect(page.isDisabled('#buy')).resolves.toBe(true);
    expect(await ordersOf(product.id, 'slow-shopper')).toEqual([]);
  }, BROWSER_TEST_MS);
});
