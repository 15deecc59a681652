import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { JwtService } from '@nestjs/jwt';
import { loadConfig } from '../apps/api/src/config/app-config';

/** `npm run token -- --sub u1 [--role admin] [--expires 1h] [--secret S]`: prints a bearer token. */
function main(): void {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const { values } = parseArgs({
    options: { sub: { type: 'string' }, role: { type: 'string', default: 'user' }, expires: { type: 'string', default: '12h' }, secret: { type: 'string' } },
  });
  if (!values.sub) throw new Error('--sub <user id> is required');
  if (values.role !== 'user' && values.role !== 'admin') throw new Error('--role must be user or admin');
  const secret = values.secret ?? loadConfig().jwtSecret;
  const token = new JwtService({ secret }).sign({ sub: values.sub, role: values.role }, { algorithm: 'HS256', expiresIn: values.expires as never });
  process.stdout.write(`${token}\n`);
}

try {
  main();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
