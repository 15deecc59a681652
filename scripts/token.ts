import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { JwtService } from '@nestjs/jwt';
import { loadConfig } from '../apps/api/src/config/app-config';

/**
 * `npm run token -- --sub u1 [--role admin] [--expires 1h] [--secret S] [--token-issuer I] [--token-audience A]`:
 * prints a bearer token the deployment accepts: its `iss` / `aud` are JWT_ISSUER / JWT_AUDIENCE
 * unless given (production requires an audience), and `--expires` must stay within its JWT_MAX_AGE_S.
 */
function main(): void {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      role: { type: 'string', default: 'user' },
      expires: { type: 'string', default: '12h' },
      secret: { type: 'string' },
      'token-issuer': { type: 'string' },
      'token-audience': { type: 'string' },
    },
  });
  if (!values.sub) throw new Error('--sub <user id> is required');
  if (values.role !== 'user' && values.role !== 'admin') throw new Error('--role must be user or admin');
  const secret = values.secret ?? loadConfig().jwtSecret;
  const issuer = values['token-issuer'] ?? (process.env.JWT_ISSUER || undefined);
  const audience = values['token-audience'] ?? (process.env.JWT_AUDIENCE || undefined);
  const token = new JwtService({ secret }).sign(
    { sub: values.sub, role: values.role },
    {
      algorithm: 'HS256',
      expiresIn: values.expires as never,
      ...(issuer ? { issuer } : {}),
      ...(audience ? { audience } : {}),
    },
  );
  process.stdout.write(`${token}\n`);
}

try {
  main();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
