import { echoOf, redactCredentials, redactQueryValues } from './redact';

describe('redactCredentials', () => {
  describe('a libpq key/value connection string', () => {
    it('hides the password and keeps every other keyword readable', () => {
      expect(redactCredentials('host=db user=app password=secret dbname=x')).toBe(
        'host=db user=app password=*** dbname=x',
      );
      expect(redactCredentials('host = db password = secret port=5432')).toBe('host = db password = *** port=5432');
    });

    it('hides a quoted password whole, escapes and spaces included', () => {
      expect(redactCredentials("host=db password='a b' dbname=x")).toBe('host=db password=*** dbname=x');
      expect(redactCredentials("password='it\\'s a secret' host=db")).toBe('password=*** host=db');
      expect(redactCredentials("host=db password='never closed dbname=x")).toBe('host=db password=***');
    });

    it('hides sslpassword, sslkey and a password holding an @ or a comma, whatever its case', () => {
      expect(redactCredentials('host=db sslkey=/keys/app.key sslpassword=k3y PASSWORD=p@ss,word')).toBe(
        'host=db sslkey=*** sslpassword=*** PASSWORD=***',
      );
    });

    it('keeps a string with no credential as it is, a word without = included', () => {
      expect(redactCredentials('host=db port=5432 dbname')).toBe('host=db port=5432 dbname');
    });
  });

  describe('credential query parameters of a URL', () => {
    it('hides password-ish values and keeps the others readable', () => {
      expect(redactCredentials('postgres://db/x?password=secret&sslmode=require')).toBe(
        'postgres://db/x?password=***&sslmode=require',
      );
      expect(redactCredentials('postgres://app@db/x?sslmode=verify-full&sslpassword=k&sslkey=/k.pem')).toBe(
        'postgres://***@db/x?sslmode=verify-full&sslpassword=***&sslkey=***',
      );
      expect(redactCredentials('redis://host:6379?password=secret')).toBe('redis://host:6379?password=***');
      expect(redactCredentials('https://idp.example.com/jwks?access_token=abc&v=2')).toBe(
        'https://idp.example.com/jwks?access_token=***&v=2',
      );
    });

    it('hides a value holding an @ or a stray &, and the user info before it', () => {
      expect(redactCredentials('postgres://u:pw@db/x?password=p@ss&sslmode=require')).toBe(
        'postgres://***@db/x?password=***&sslmode=require',
      );
      expect(redactCredentials('postgres://db/x?password=a&b&sslmode=require')).toBe(
        'postgres://db/x?password=***&sslmode=require',
      );
    });

    it('redacts each address of a list on its own', () => {
      expect(redactCredentials('redis://a:1?password=x,redis://:y@b:2,redis://c:3')).toBe(
        'redis://a:1?password=***,redis://***@b:2,redis://c:3',
      );
    });
  });
});

describe('echoOf', () => {
  it("shows nothing of a secret variable's value", () => {
    for (const name of [
      'REDIS_PASSWORD',
      'REDIS_SENTINEL_PASSWORD',
      'JWT_SECRET',
      'PAYMENT_WEBHOOK_SECRET',
      'API_KEY',
    ]) {
      expect(echoOf(name, 'hunter2-hunter2')).not.toContain('hunter2');
    }
  });

  it('echoes any other value with its credentials redacted, and says when it got none', () => {
    expect(echoOf('REDIS_URL', 'redis://:pw@host')).toBe('"redis://***@host"');
    expect(echoOf('REDIS_KEY_PREFIX', 'fs:')).toBe('"fs:"');
    expect(echoOf('REDIS_PASSWORD', undefined)).toBe('nothing');
  });
});

describe('redactQueryValues', () => {
  it('hides every query value and the fragment, keeping the names', () => {
    expect(redactQueryValues('https://idp.example.com/keys?code=abc&tenant=t1#frag')).toBe(
      'https://idp.example.com/keys?code=***&tenant=***#***',
    );
    expect(redactQueryValues('https://idp.example.com/keys')).toBe('https://idp.example.com/keys');
  });
});
