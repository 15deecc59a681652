import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../apps/api/src/config/app-config';
import { mintToken } from '../loadtest/jwt';

/**
 * `npm run seed -- --products N --stock S [--url http://127.0.0.1:3000] [--per-user-limit L]
 *  [--price-cents P] [--sku-prefix X] [--secret S] [--token-issuer I] [--token-audience A]`: creates N
 * products through the admin API, so every lock, flag and cache the API keeps is set up exactly as
 * for a product made by hand. Its admin token carries the deployment's `iss` / `aud` (JWT_ISSUER /
 * JWT_AUDIENCE unless given: production refuses a token without an audience) and lives an hour, or
 * JWT_MAX_AGE_S if the deployment allows less.
 */
async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: process.env.API_URL ?? 'http://127.0.0.1:3000' },
      products: { type: 'string', default: '1' },
      stock: { type: 'string', default: '1000' },
      'per-user-limit': { type: 'string', default: '1' },
      'price-cents': { type: 'string', default: '9900' },
      'sku-prefix': { type: 'string', default: `SEED-${Date.now().toString(36).toUpperCase()}` },
      secret: { type: 'string' },
      'token-issuer': { type: 'string' },
      'token-audience': { type: 'string' },
      concurrency: { type: 'string', default: '8' },
    },
  });
  const count = positiveInt(values.products, '--products');
  const stock = nonNegativeInt(values.stock, '--stock');
  const perUserLimit = positiveInt(values['per-user-limit'], '--per-user-limit');
  const priceCents = nonNegativeInt(values['price-cents'], '--price-cents');
  const secret = values.secret ?? loadConfig().jwtSecret;
  if (!secret) throw new Error('no JWT_SECRET: set it in .env, or pass --secret S');
  const token = mintToken(secret, 'seed-script', 'admin', Math.min(3600, Number(process.env.JWT_MAX_AGE_S) || 3600), {
    issuer: values['token-issuer'] ?? (process.env.JWT_ISSUER || undefined),
    audience: values['token-audience'] ?? (process.env.JWT_AUDIENCE || undefined),
  });
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${values.url}/admin/products`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          sku: `${values['sku-prefix']}-${i + 1}`,
          name: `Seeded product ${i + 1}`,
          priceCents,
          stock,
          perUserLimit,
        }),
      });
      const body = (await res.json()) as { id?: string; code?: string; message?: string };
      if (res.status !== 201 || !body.id)
        throw new Error(`product ${i + 1}: HTTP ${res.status} ${body.code ?? ''} ${body.message ?? ''}`);
      ids[i] = body.id;
    }
  };
  await Promise.all(Array.from({ length: Math.min(positiveInt(values.concurrency, '--concurrency'), count) }, worker));
  console.log(JSON.stringify({ created: count, stockEach: stock, perUserLimit, ids }));
}

function nonNegativeInt(raw: string | undefined, flag: string): number {
  if (!raw || !/^\d+$/.test(raw)) throw new Error(`${flag} must be a non-negative integer`);
  return Number(raw);
}

function positiveInt(raw: string | undefined, flag: string): number {
  const value = nonNegativeInt(raw, flag);
  if (value < 1) throw new Error(`${flag} must be at least 1`);
  return value;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
