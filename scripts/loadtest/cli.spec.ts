import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSummary, parseCommand, USAGE, versionLine } from './cli';
import { evaluateThresholds, parseThresholds } from './thresholds';
import type { LoadTestResult } from './types';

const ROOT = join(__dirname, '..', '..');
const RUN = [
  '--url',
  'http://127.0.0.1:3000',
  '--stock',
  '10',
  '--users',
  '5',
  '--connections',
  '2',
  '--requests',
  '20',
];

describe('the load test command line', () => {
  it('answers --help and -h with the usage, whatever else is on the line', () => {
    expect(parseCommand(['--help'], {})).toEqual({ action: 'help' });
    expect(parseCommand([...RUN, '-h', '--bogus'], {})).toEqual({ action: 'help' });
    expect(USAGE).toMatch(/--json/);
    expect(USAGE).toMatch(/--fail-on/);
  });

  it('answers --version with the project version', () => {
    expect(parseCommand(['--version'], {})).toEqual({ action: 'version' });
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(versionLine()).toBe(`flash-sale loadtest ${version} (node ${process.version})`);
  });

  it('reads --json and --fail-on beside the run options', () => {
    const command = parseCommand([...RUN, '--json', '--fail-on', 'p99>500ms,oversell>0'], {});
    expect(command).toMatchObject({ action: 'run', json: true, options: { stock: 10, users: 5, requests: 20 } });
    expect(command.action === 'run' && command.thresholds.map((t) => t.metric)).toEqual(['p99', 'oversell']);
    expect(parseCommand(RUN, {})).toMatchObject({ json: false, thresholds: [] });
  });

  it('refuses a bad --fail-on and an unknown flag before any run', () => {
    expect(() => parseCommand([...RUN, '--fail-on', 'p99>>1s'], {})).toThrow(/--fail-on/);
    expect(() => parseCommand([...RUN, '--jsn'], {})).toThrow(/Unknown option '--jsn'/);
  });

  it('puts the figures, the thresholds and the exit code in the JSON summary, without the timeline', () => {
    const result = {
      ok: true,
      latency: { count: 1, min: 1, mean: 1, p50: 1, p90: 1, p99: 700, max: 700 },
      timeline: [{ second: 0, total: 1, byStatus: {} }],
      histogram: [],
      purchases: 1,
    } as unknown as LoadTestResult;
    const outcomes = evaluateThresholds(parseThresholds('p99>500ms'), result);
    const summary = jsonSummary(result, outcomes, 3);
    expect(summary).toMatchObject({
      exitCode: 3,
      purchases: 1,
      thresholds: [{ expression: 'p99>500ms', crossed: true }],
    });
    expect(summary).not.toHaveProperty('timeline');
    expect(summary).not.toHaveProperty('histogram');
  });

  describe('the bin entry', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const bin = join(ROOT, manifest.bin['flash-sale-loadtest']);
    // From another folder, as a linked bin runs.
    const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: '/', encoding: 'utf8' });

    it('is an executable node script', () => {
      expect(readFileSync(bin, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
      expect(() => accessSync(bin, constants.X_OK)).not.toThrow();
    });

    it('prints the usage on stdout and exits 0 for --help, the version for --version', () => {
      const help = run('--help');
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('usage: npm run loadtest');
      const version = run('--version');
      expect(version.status).toBe(0);
      expect(version.stdout).toMatch(/^flash-sale loadtest \d+\.\d+\.\d+ \(node v24\./);
    });

    it('exits 2 with the reason on stderr for a bad --fail-on', () => {
      const bad = run(...RUN, '--fail-on', 'p95>1s');
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('--fail-on: unknown metric "p95"');
      expect(bad.stdout).toBe('');
    });
  });
});
