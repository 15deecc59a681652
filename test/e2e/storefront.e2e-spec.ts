import type { AddressInfo } from 'node:net';
import { Browser, BrowserContext, chromium, Page } from 'playwright-core';
import { serveStorefront, Storefront } from '../../examples/storefront/serve';
import { Api, injectSender } from '../support/api-client';
import { AppHarness, startApp } from '../support/app-harness';
import { browserTests, CHROMIUM_ARGS } from '../support/chromium';
import { adminAuth, token } from '../support/tokens';

const BROWSER_TEST_MS = 60_000;

/**
 * The storefront example (examples/storefront) served from its own origin and driven in headless
 * Chromium against the real API: what a shopper's browser can and cannot do across origins.
 */
// Chromium is looked for (and installed when possible) as the file loads, so that without it the
// tests below are declared skipped rather than run to an early return.
const { browserPath, itInBrowser } = browserTests('the storefront browser test');

describe('storefront in a browser on another origin', () => {
  let shop: Storefront;
  let otherSite: Storefront;
  let harness: AppHarness;
  let api: Api;
  let apiUrl: string;
  let browser: Browser;
  let context: BrowserContext;
  let lastUnit: string;
  let plenty: string;

  beforeAll(async () => {
    if (!browserPath) return;
    [shop, otherSite] = await Promise.all([serveStorefront(), serveStorefront()]);
    // One purchase per user per second, so a quick second click is rate limited (429 + Retry-After).
    harness = await startApp({ CORS_ORIGINS: shop.origin, RATE_LIMIT_PER_SECOND: '1' });
    await harness.app.listen(0, '127.0.0.1');
    apiUrl = `http://127.0.0.1:${(harness.app.getHttpServer().address() as AddressInfo).port}`;
    api = new Api(injectSender(harness.app));
    lastUnit = (await api.createProduct({ name: 'Last phone', stock: 1, perUserLimit: 1 })).id;
    plenty = (await api.createProduct({ name: 'Plenty of cables', stock: 100, perUserLimit: 10 })).id;
    browser = await chromium.launch({ executablePath: browserPath, args: CHROMIUM_ARGS });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
    await Promise.all([shop?.close(), otherSite?.close()]);
  });

  // A fresh browser profile per test: no HTTP cache or preflight cache carried between them.
  beforeEach(async () => {
    if (browserPath) context = await browser.newContext();
  });
  afterEach(() => context?.close());

  const open = async (site: Storefront, product: string, shopper: string): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(site.pageUrl({ api: apiUrl, product, token: token(shopper) }));
    return page;
  };
  /** What the page shows of the last answer: its data-* attributes and the shopper's message. */
  const outcome = (page: Page): Promise<Record<string, string>> =>
    page.$eval('#outcome', (el) => ({ ...(el as unknown as { dataset: Record<string, string> }).dataset, message: el.querySelector('#outcome-message')?.textContent ?? '' }));
  const ordersOf = async (productId: string, userId: string) =>
    (await api.listOrders(adminAuth(), { productId })).body.items.filter((order) => order.userId === userId);

  itInBrowser('shows the product and its stock, and buys a unit (201)', async () => {
    const page = await open(shop, lastUnit, 'shopper-1');
    await page.waitForSelector('#product[data-state="available"]');
    await expect(page.textContent('#name')).resolves.toBe('Last phone');
    await expect(page.textContent('#stock')).resolves.toBe('1');
    await page.click('#buy');
    await page.waitForSelector('#outcome[data-state="ok"]');
    const shown = await outcome(page);
    expect(shown).toMatchObject({ status: '201', code: '' });
    expect(shown.message).toMatch(/^Order \d+ is yours/);
    await expect(page.textContent('#outcome-request-id')).resolves.toMatch(/^[0-9a-f-]{36}$/);
    expect(await ordersOf(lastUnit, 'shopper-1')).toHaveLength(1);
  }, BROWSER_TEST_MS);

  itInBrowser('tells the next shopper the product is SOLD_OUT (409)', async () => {
    const page = await open(shop, lastUnit, 'shopper-2');
    await page.waitForSelector('#buy:not([disabled])');
    await page.click('#buy');
    await page.waitForSelector('#outcome[data-state="refused"]');
    const shown = await outcome(page);
    expect(shown).toMatchObject({ status: '409', code: 'SOLD_OUT' });
    expect(shown.message).toMatch(/sold out/i);
  }, BROWSER_TEST_MS);

  itInBrowser('shows a 429 with its Retry-After, holds the Buy button until then, and retries the same attempt', async () => {
    const page = await open(shop, plenty, 'shopper-3');
    const purchases: { status: number; key: string }[] = [];
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && response.url().endsWith('/purchase')) {
        purchases.push({ status: response.status(), key: response.request().headers()['idempotency-key'] });
      }
    });
    // Clicks as fast as the page allows until one lands in the same second as a sale.
    for (let click = 0; click < 8 && !purchases.some((p) => p.status === 429); click++) {
      const answered = page.waitForResponse((response) => response.url().endsWith('/purchase'));
      await page.click('#buy');
      await answered;
    }
    await page.waitForSelector('#outcome[data-status="429"]');
    const shown = await outcome(page);
    expect(shown).toMatchObject({ state: 'retry', code: 'RATE_LIMITED' });
    expect(Number(shown.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(shown.message).toMatch(new RegExp(`Try again in ${shown.retryAfter} s`));
    await expect(page.isDisabled('#buy')).resolves.toBe(true);

    const refused = purchases.find((p) => p.status === 429)!;
    const retried = page.waitForResponse((response) => response.url().endsWith('/purchase'));
    await page.click('#buy'); // waits until the page enables it again, after Retry-After
    await retried;
    expect(purchases.at(-1)!.key).toBe(refused.key);
  }, BROWSER_TEST_MS);

  itInBrowser('gives a page on an origin not in CORS_ORIGINS nothing to read, and lets it buy nothing', async () => {
    const page = await open(otherSite, plenty, 'shopper-4');
    await page.waitForSelector('#product[data-state="unreachable"]');
    await expect(page.isDisabled('#buy')).resolves.toBe(true);
    const attempts = await page.evaluate(
      async ({ base, product, bearer }) => {
        const settle = (request: Promise<Response>) => request.then((r) => `read ${r.status}`, (error: Error) => error.name);
        return {
          read: await settle(fetch(`${base}/products/${product}`)),
          buy: await settle(fetch(`${base}/products/${product}/purchase`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: '{"quantity":1}' })),
        };
      },
      { base: apiUrl, product: plenty, bearer: token('shopper-4') },
    );
    expect(attempts).toEqual({ read: 'TypeError', buy: 'TypeError' });
    expect(await ordersOf(plenty, 'shopper-4')).toEqual([]);
  }, BROWSER_TEST_MS);
});
