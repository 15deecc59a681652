import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { runLoadTest } from '../../scripts/loadtest';
import { LoadTestResult } from '../../scripts/loadtest/types';
import { CHROMIUM_ARGS, chromiumForTest } from '../support/chromium';
import { FakeServer, startFakeServer } from '../support/loadtest-fake-server';
import { testOutputDir } from '../support/test-output';

const SECRET = 'report-test-secret-0123456789';

// Had (or installed) while the file loads: on CI a browser that cannot be had fails the suite
// here; elsewhere the check shows as skipped, never as passed.
const browserPath = chromiumForTest('the headless-browser check of report.html');
const itInBrowser = browserPath ? it : it.skip;

describe('load-test report', () => {
  let server: FakeServer;
  let result: LoadTestResult;

  beforeAll(async () => {
    server = await startFakeServer({ secret: SECRET, unavailableRate: 0.2, retryAfterS: 0 });
    result = await runLoadTest({
      urls: [server.url],
      stock: 40,
      users: 60,
      connections: 6,
      requests: 150,
      tokenSecret: SECRET,
      reportDir: testOutputDir('lt-report'),
    });
  }, 240_000);
  afterAll(() => server?.close());

  it('writes report.json with the run and the verdict', () => {
    const json = JSON.parse(readFileSync(result.reportPaths!.json, 'utf8')) as LoadTestResult;
    expect(json).toMatchObject({ runId: result.runId, ok: true, purchases: 40, attempts: 150 });
    expect(json.timeline.length).toBeGreaterThan(0);
  });

  it('writes a self-contained report.html: no scripts or links to fetch', () => {
    const html = readFileSync(result.reportPaths!.html, 'utf8');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import/i);
  });

  itInBrowser('renders its charts in headless Chromium', async () => {
    const browser = await chromium.launch({ executablePath: browserPath!, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 900, height: 1200 } });
      // Offline: any request beyond the file itself would mean the page is not self-contained.
      const external: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith('file://')) external.push(request.url());
      });
      await page.goto(`file://${result.reportPaths!.html}`);
      const charts = await page.$$eval('figure.chart svg', (svgs) =>
        svgs.map((svg) => {
          const box = svg.getBoundingClientRect();
          return { bars: svg.querySelectorAll('rect.bar').length, width: box.width, height: box.height };
        }),
      );
      // throughput, latency percentiles, latency histogram, responses by code, attempts by outcome
      expect(charts).toHaveLength(5);
      for (const chart of charts) {
        expect(chart.bars).toBeGreaterThan(0);
        expect(chart.width).toBeGreaterThan(100);
        expect(chart.height).toBeGreaterThan(50);
      }
      const barHeights = await page.$$eval('figure.chart rect.bar', (rects) => rects.map((r) => r.getBoundingClientRect().height));
      expect(barHeights.some((h) => h > 5)).toBe(true);
      await expect(page.textContent('#verdict')).resolves.toContain('All invariants hold');
      const screenshot = join(result.reportPaths!.dir, 'screenshot.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      expect(statSync(screenshot).size).toBeGreaterThan(10_000);
      expect(external).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
