import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { runLoadTest } from '../../scripts/loadtest';
import { renderReportHtml } from '../../scripts/loadtest/report-html';
import { LoadTestResult } from '../../scripts/loadtest/types';
import { writeFileSync } from 'node:fs';
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

  itInBrowser(
    'renders its charts in headless Chromium',
    async () => {
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
        const barHeights = await page.$$eval('figure.chart rect.bar', (rects) =>
          rects.map((r) => r.getBoundingClientRect().height),
        );
        expect(barHeights.some((h) => h > 5)).toBe(true);
        await expect(page.textContent('#verdict')).resolves.toContain('All invariants hold');
        const screenshot = join(result.reportPaths!.dir, 'screenshot.png');
        await page.screenshot({ path: screenshot, fullPage: true });
        expect(statSync(screenshot).size).toBeGreaterThan(10_000);
        expect(external).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  itInBrowser(
    "shows the generator's cost, and marks the seconds it was saturated with a banner above",
    async () => {
      // The run above never saturates its generator: the same report with two of its seconds said to.
      const seconds = result.timeline.map((bucket) => bucket.second);
      const saturated = [...new Set([seconds[0], seconds[seconds.length - 1]])];
      const page = join(result.reportPaths!.dir, 'saturated.html');
      writeFileSync(
        page,
        renderReportHtml({ ...result, generator: { ...result.generator!, saturatedSeconds: saturated } }),
      );
      const browser = await chromium.launch({ executablePath: browserPath!, args: CHROMIUM_ARGS });
      try {
        const tab = await browser.newPage({ viewport: { width: 900, height: 1200 } });
        await tab.goto(`file://${result.reportPaths!.html}`);
        // The real run: its CPU per request and each worker's lag in the table, no banner, no marks.
        const table = await tab.textContent('#generator');
        expect(table).toMatch(/\d\.\d{3} ms CPU a purchase request/);
        expect(table).toMatch(/worker 0.*event-loop lag p99 [\d.]+ ms/);
        expect(await tab.$('#generator-saturated')).toBeNull();
        expect(await tab.$$('figure.chart rect.marked')).toHaveLength(0);

        await tab.goto(`file://${page}`);
        const banner = await tab.$('#generator-saturated');
        expect(await banner?.isVisible()).toBe(true);
        expect(await banner?.textContent()).toContain(`saturated in ${saturated.length} of ${seconds.length} s`);
        const marks = await tab.$$eval('figure.chart rect.marked', (rects) =>
          rects.map((r) => ({
            label: r.querySelector('title')?.textContent,
            height: r.getBoundingClientRect().height,
          })),
        );
        expect(marks.map((m) => m.label)).toEqual(saturated.map((s) => `${s}s: load generator saturated`));
        expect(marks.every((m) => m.height > 50)).toBe(true);
        await expect(tab.textContent('.legend')).resolves.toContain('load generator saturated');
        await tab.screenshot({ path: join(result.reportPaths!.dir, 'saturated.png'), fullPage: true });
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
