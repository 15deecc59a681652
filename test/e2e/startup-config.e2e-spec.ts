import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const entry = resolve('dist/apps/api/main.js');

describe('start-up with bad configuration', () => {
  beforeAll(() => {
    if (!existsSync(entry)) throw new Error('build first: npm run build (npm test does it)');
  });

  it.each([
    ['LOCK_TTL_MS', 'soon'],
    ['REDIS_URL', 'localhost'],
    ['LOCK_FALLBACK', 'pray'],
    ['CORS_ORIGINS', 'shop.example.com'],
    ['TRUST_PROXY', 'maybe'],
    ['PRODUCT_CACHE_SWR_S', '-5'],
  ])('stops with exit code 1 and one line naming %s', (name, value) => {
    const result = spawnSync(process.execPath, [entry], { env: { ...process.env, [name]: value }, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
    expect(result.stdout).toBe('');
  });
});
