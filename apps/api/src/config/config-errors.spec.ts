import { randomBytes } from 'node:crypto';
import { loadConfig } from './app-config';
import { ConfigError, Env } from './env.schema';
import { redactCredentials } from './redact';

const SECRET = 'S3cr3t-of-the-operator';

/** What start-up prints for `env`: the one line of the ConfigError loadConfig throws (anything else fails the test). */
function startupLine(env: Env): string {
  try {
    loadConfig({ NODE_ENV: 'development', ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('loadConfig accepted the environment');
}

describe('configuration errors', () => {
  it.each([
    ['REDIS_URL', `redis//:${SECRET}@host:6379`],
    ['REDIS_URL', `http://:${SECRET}@host:6379`],
    ['DATABASE_URL', `postgres//flashsale:${SECRET}@db:5432/flashsale`],
    ['DATABASE_URL', `mysql://flashsale:${SECRET}@db/flashsale`],
    ['REDLOCK_URLS', `redis://:${SECRET}@a:1,redis://:${SECRET}@b:2`],
    ['REDLOCK_URLS', `redis://:${SECRET}@a:1,redis//:${SECRET}@b:2,redis://:${SECRET}@c:3`],
    ['JWT_JWKS_URL', `https://client:${SECRET}@idp.example.com/jwks`],
    ['DATABASE_URL', `host=db user=flashsale password=${SECRET} dbname=flashsale`],
    ['DATABASE_URL', `host=db password='${SECRET} with spaces' dbname=flashsale`],
    ['DATABASE_URL', `mysql://db/flashsale?sslmode=require&password=${SECRET}`],
    ['DATABASE_URL', `postgres://db:port/flashsale?sslpassword=${SECRET}`],
    ['REDIS_URL', `redis://host:6379?password=${SECRET}`],
    ['REDLOCK_URLS', `redis://a:1?password=${SECRET},redis://b:2,redis://c:3`],
    ['JWT_JWKS_URL', `idp.example.com/jwks?code=${SECRET}`],
  ])('name %s and never echo the password in it (%s)', (name, value) => {
    const line = startupLine({ [name]: value });
    expect(line).toMatch(new RegExp(`^Invalid configuration: ${name} `));
    expect(line).not.toContain(SECRET);
    expect(line).not.toContain(SECRET.slice(0, 6));
  });

  it('turn a badly percent-encoded password into the one clear line, not an URIError', () => {
    for (const [name, value] of [
      ['REDIS_URL', 'redis://:50%off@host:6379'],
      ['DATABASE_URL', 'postgres://flashsale:50%off@db/flashsale'],
      ['REDLOCK_URLS', 'redis://:a@a:1,redis://:50%off@b:2,redis://:c@c:3'],
    ]) {
      const line = startupLine({ [name]: value });
      expect(line).toMatch(
        new RegExp(`^Invalid configuration: ${name} has a user or password that is not valid percent-encoding`),
      );
      expect(line).not.toContain('50%off');
    }
  });

  it('turn a bad password encoding into the one line in production too, where DATABASE_URL is decoded to be judged', () => {
    const env = {
      NODE_ENV: 'production',
      JWT_SECRET: randomBytes(32).toString('hex'),
      JWT_AUDIENCE: 'shop',
      REDIS_ALLOW_NO_AUTH: 'true',
    };
    expect(() => loadConfig({ ...env, DATABASE_URL: 'postgres://postgres:%E0%A4%A@db/x' })).toThrow(
      /^Invalid configuration: DATABASE_URL has a user or password that is not valid percent-encoding/,
    );
  });
});

describe('redactCredentials', () => {
  it('hides whatever stands before the last @ of each address, however malformed', () => {
    expect(redactCredentials('redis://:pw@host:6379')).toBe('redis://***@host:6379');
    expect(redactCredentials('redis//user:p@ss@host')).toBe('redis//***@host');
    expect(redactCredentials('postgres://u:pa,ss@db/x')).toBe('postgres://***@db/x');
    expect(redactCredentials('redis://:a@h1,redis://h2,rediss://u:b@h3')).toBe(
      'redis://***@h1,redis://h2,rediss://***@h3',
    );
    expect(redactCredentials(':pw@host')).toBe('***@host');
    expect(redactCredentials('https://shop.example.com')).toBe('https://shop.example.com');
  });
});
