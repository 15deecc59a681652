import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { JwtService } from '@nestjs/jwt';
import { loadConfig } from '../../apps/api/src/config/app-config';

/**
 * `npm run seed -- --products N --stock S [--url http://127.0.0.1:3000] [--per-user-limit L]
 *  [--price-cents P] [--sku-prefix X] [--secret S]`: creates N products through the admin API,
 * so every lock, flag and cache the API keeps is set up exactly as for a product made by hand.
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
      concurrency: { type: 'string', default: '8' },
    },
  });
  const count = positiveInt(values.products, '--products');
  const stock = nonNegativeInt(values.stock, '--stock');
  const perUserLimit = positiveInt(values['per-user-limit'], '--per-user-limit');
  const priceCents = nonNegativeInt(values['price-cents'], '--price-cents');
  const token = new JwtService({ secret: values.secret ?? loadConfig().jwtSecret }).sign(
    { sub: 'seed-script', role: 'admin' },
    { algorithm: 'HS256', expiresIn: '1h' },
  );
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
