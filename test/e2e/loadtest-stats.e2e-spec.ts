import { createHmac } from 'node:crypto';
import { parseCliArgs } from '../../scripts/loadtest/cli';
import { demandUnits } from '../../scripts/loadtest/invariants';
import { mintToken } from '../../scripts/loadtest/jwt';
import { Recorder } from '../../scripts/loadtest/recorder';
import { parseRetryAfter, retryDelayMs } from '../../scripts/loadtest/retry-policy';
import { latencyHistogram, percentile, perSecond, summarizeLatency } from '../../scripts/loadtest/stats';
import { niceScale } from '../../scripts/loadtest/svg-charts';

describe('percentiles and latency summary', () => {
  it('uses the nearest rank', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 90)).toBe(90);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile(sorted, 0)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 51)).toBe(3);
  });

  it('summarizes unsorted samples', () => {
    expect(summarizeLatency([30, 10, 20, 40])).toEqual({ count: 4, min: 10, mean: 25, p50: 20, p90: 40, p99: 40, max: 40 });
    expect(summarizeLatency([])).toEqual({ count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 });
  });

  it('sorts numerically, not as strings', () => {
    expect(summarizeLatency([100, 9, 20]).p50).toBe(20);
  });

  it('buckets latencies on a 1-2-5 scale, trimming empty ends, counting every sample', () => {
    const samples = [0.5, 3, 3.5, 7, 120, 4999];
    const buckets = latencyHistogram(samples);
    expect(buckets[0]).toEqual({ fromMs: 0, toMs: 1, count: 1 });
    expect(buckets.find((b) => b.fromMs === 2)).toEqual({ fromMs: 2, toMs: 5, count: 2 });
    expect(buckets.find((b) => b.fromMs === 100)).toEqual({ fromMs: 100, toMs: 200, count: 1 });
    expect(buckets[buckets.length - 1]).toEqual({ fromMs: 2000, toMs: 5000, count: 1 });
    expect(buckets.reduce((sum, b) => sum + b.count, 0)).toBe(samples.length);
    expect(latencyHistogram([])).toHaveLength(1);
  });

  it('rates and chart scales', () => {
    expect(perSecond(50, 2)).toBe(25);
    expect(perSecond(5, 0)).toBe(0);
    expect(niceScale(87)).toEqual({ max: 100, step: 20 });
    expect(niceScale(0)).toEqual({ max: 1, step: 1 });
    expect(niceScale(3)).toEqual({ max: 3, step: 1 });
  });
});

describe('recorder', () => {
  it('groups by status and code, buckets by second, and dedupes replayed orders', () => {
    const recorder = new Recorder(1_000);
    recorder.record({ status: 201, latencyMs: 5, finishedAt: 1_100 });
    recorder.record({ status: 409, code: 'SOLD_OUT', latencyMs: 7, finishedAt: 1_900 });
    recorder.record({ status: 503, code: 'LOCK_TIMEOUT', latencyMs: 9, finishedAt: 3_200 });
    recorder.record({ status: 0, error: 'ECONNRESET', latencyMs: 1, finishedAt: 3_300 });
    recorder.recordCreated('o1', 'u1');
    recorder.recordCreated('o1', 'u1');
    expect(recorder.byStatus).toEqual({ 201: 1, 409: 1, 503: 1, error: 1 });
    expect(recorder.byCode).toEqual({ 201: 1, '409 SOLD_OUT': 1, '503 LOCK_TIMEOUT': 1, 'error ECONNRESET': 1 });
    expect(recorder.errors).toEqual({ ECONNRESET: 1 });
    expect(recorder.latencies).toEqual([5, 7, 9]);
    expect(recorder.timeline().map((b) => b.total)).toEqual([2, 0, 2]);
    expect(recorder.createdOrderIds.size).toBe(1);
    expect(recorder.progress(3_000)).toMatchObject({ requests: 4, created: 1, conflicts: 1, unavailable: 1, rps: 2 });
  });
});

describe('demand', () => {
  it('spreads attempts round-robin over users, capped by the per-user limit', () => {
    expect(demandUnits(20_000, 10_000, 1, 1)).toBe(10_000);
    expect(demandUnits(150, 100, 1, 1)).toBe(100);
    expect(demandUnits(50, 100, 1, 1)).toBe(50);
    expect(demandUnits(30, 10, 2, 1)).toBe(20);
    expect(demandUnits(30, 10, 3, 2)).toBe(20);
    expect(demandUnits(30, 10, 1, 2)).toBe(0);
  });
});

describe('retry policy', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    expect(parseRetryAfter(new Date(11_000).toUTCString(), 1_000)).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('waits at least Retry-After, caps the wait, and backs off without a hint', () => {
    expect(retryDelayMs(1000, 0, 5000, () => 0)).toBe(1000);
    expect(retryDelayMs(1000, 0, 5000, () => 1)).toBe(1200);
    expect(retryDelayMs(30_000, 0, 2000, () => 0.5)).toBe(2000);
    expect(retryDelayMs(undefined, 0, 5000, () => 0)).toBe(100);
    expect(retryDelayMs(undefined, 3, 5000, () => 0)).toBe(800);
  });
});

describe('tokens', () => {
  it('mints an HS256 JWT with sub, role and exp that verifies with the secret', () => {
    const token = mintToken('s3cret-s3cret-s3cret', 'lt-x-1', 'user', 60);
    const [header, payload, signature] = token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ sub: 'lt-x-1', role: 'user' });
    expect(claims.exp - claims.iat).toBe(60);
    expect(signature).toBe(createHmac('sha256', 's3cret-s3cret-s3cret').update(`${header}.${payload}`).digest('base64url'));
  });

  it('writes the iss and aud the deployment requires: --token-issuer / --token-audience, else JWT_ISSUER / JWT_AUDIENCE', () => {
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims(mintToken('s3cret-s3cret-s3cret', 'u', 'user', 60, { issuer: 'https://shop', audience: 'flash-sale-api' }))).toMatchObject({ iss: 'https://shop', aud: 'flash-sale-api' });
    expect(claims(mintToken('s3cret-s3cret-s3cret', 'u', 'user', 60))).not.toHaveProperty('aud');
    const env = { JWT_ISSUER: 'https://shop', JWT_AUDIENCE: 'flash-sale-api' };
    expect(parseCliArgs(['--users', '1'], env)).toMatchObject({ tokenIssuer: 'https://shop', tokenAudience: 'flash-sale-api' });
    expect(parseCliArgs(['--users', '1', '--token-audience', 'staging-api'], env).tokenAudience).toBe('staging-api');
    expect(parseCliArgs(['--users', '1'], {})).toMatchObject({ tokenIssuer: undefined, tokenAudience: undefined });
  });
});

describe('CLI arguments', () => {
  it('parses repeated and comma-separated URLs, numbers and defaults', () => {
    const options = parseCliArgs(['--url', 'http://a:1', '--url', 'http://b:2,http://c:3', '--stock', '100', '--users', '10', '--connections', '4', '--duration', '5'], {});
    expect(options).toMatchObject({ urls: ['http://a:1', 'http://b:2', 'http://c:3'], stock: 100, users: 10, connections: 4, durationS: 5, reportDir: 'reports' });
    expect(options.tokenSecret).toBe('dev-only-secret-change-me');
    expect(parseCliArgs(['--users', '1'], { JWT_SECRET: 'from-env' }).tokenSecret).toBe('from-env');
    expect(parseCliArgs(['--no-report'], {}).reportDir).toBeNull();
  });

  it('rejects non-numbers and unknown flags', () => {
    expect(() => parseCliArgs(['--users', 'ten'], {})).toThrow('--users must be a number');
    expect(() => parseCliArgs(['--bogus', '1'], {})).toThrow();
  });
});
