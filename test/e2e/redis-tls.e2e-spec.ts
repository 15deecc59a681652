/**
 * Redis over TLS with a password: a built instance given `rediss://:<password>@host`, or
 * `redis://host` with REDIS_TLS=true and REDIS_PASSWORD, sells through a redis-server that has no
 * plaintext port, trusting the server's private CA through Node's own NODE_EXTRA_CA_CERTS; the
 * same instance without that CA, or with `redis://` alone, cannot use it.
 */
import { execFileSync, spawn, ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { ApiProcess } from '../../scripts/infra/api-process';
import { Api, eventually, expectContractError, httpSender } from '../support/api-client';
import { TEST_JWT_SECRET } from '../support/app-harness';
import { freePort } from '../support/free-port';
import { createTestDatabase, TestDatabase } from '../support/test-database';

jest.setTimeout(90_000);

const PASSWORD = 'tls-test-password-0123456789';

/** A private CA and a certificate for `localhost` it signed, written into `dir`. */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=flash-sale test CA');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('server.pem'), '-days', '1', '-extfile', file('server.ext'));
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

/** A client of the test's own, over TLS with the CA, to read what the app wrote. */
const tlsClient = (port: number, ca: string) =>
  new Redis({ host: 'localhost', port, password: PASSWORD, tls: { ca: readFileSync(ca) }, lazyConnect: true, maxRetriesPerRequest: 1 });

describe('Redis over TLS, with a password', () => {
  let dir: string;
  let certs: { ca: string; cert: string; key: string };
  let redisPort: number;
  let redis: ChildProcess;
  let db: TestDatabase;
  const apis: ApiProcess[] = [];

  async function startApi(env: Record<string, string>): Promise<{ api: ApiProcess; client: Api }> {
    const api = new ApiProcess({
      port: await freePort(),
      env: { NODE_ENV: 'test', JWT_SECRET: TEST_JWT_SECRET, LOG_LEVEL: 'warn', DATABASE_URL: db.url, REDIS_COMMAND_TIMEOUT_MS: '1000', ...env },
    });
    apis.push(api);
    await api.start(60_000);
    return { api, client: new Api(httpSender(api.url)) };
  }

  /** Until /health answers `want` (its probe is cached about a second), at most 5 s. */
  const healthBecomes = (api: ApiProcess, want: number): Promise<boolean> =>
    eventually(async () => (await fetch(`${api.url}/health`)).status === want, 5000, 200, `/health to answer ${want}`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));
    certs = makeCertificates(dir);
    [redisPort, db] = await Promise.all([freePort(), createTestDatabase()]);
    // No plaintext port: whatever reaches this server came over TLS.
    redis = spawn(process.env.REDIS_SERVER_BIN ?? 'redis-server', [
      '--port', '0', '--tls-port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
      '--requirepass', PASSWORD, '--tls-cert-file', certs.cert, '--tls-key-file', certs.key, '--tls-ca-cert-file', certs.ca, '--tls-auth-clients', 'no',
    ], { stdio: 'ignore' });
    const probe = tlsClient(redisPort, certs.ca);
    const connected = (): Promise<boolean> =>
      probe.connect().then(
        () => true,
        () => {
          probe.disconnect();
          return false;
        },
      );
    await eventually(connected, 5000, 100, 'the TLS redis-server to come up');
    probe.disconnect();
  });

  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
    redis?.kill('SIGKILL');
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sells through rediss:// when the CA is trusted, and the flags it writes are in the TLS server', async () => {
    const { api, client } = await startApi({ REDIS_URL: `rediss://:${PASSWORD}@localhost:${redisPort}`, NODE_EXTRA_CA_CERTS: certs.ca });
    await healthBecomes(api, 200);
    const product = await client.createProduct({ stock: 1 });
    expect((await client.purchase(product.id, 'tls-buyer-1')).status).toBe(201);
    const soldOut = await client.purchase(product.id, 'tls-buyer-2');
    expectContractError(soldOut, 409, 'SOLD_OUT');
    // The lock's fence counter and the sold-out flag exist only in the TLS server.
    const reader = tlsClient(redisPort, certs.ca);
    await reader.connect();
    const keys = await reader.keys(`*${product.id}*`);
    reader.disconnect();
    expect(keys.some((key) => key.endsWith(':sold-out'))).toBe(true);
  });

  it('applies REDIS_TLS=true and REDIS_PASSWORD to a single Redis too (they were ignored there: plaintext, no password)', async () => {
    const { api, client } = await startApi({ REDIS_URL: `redis://localhost:${redisPort}`, REDIS_TLS: 'true', REDIS_PASSWORD: PASSWORD, NODE_EXTRA_CA_CERTS: certs.ca });
    await healthBecomes(api, 200);
    const product = await client.createProduct({ stock: 1 });
    expect((await client.purchase(product.id, 'tls-env-buyer-1')).status).toBe(201);
    expectContractError(await client.purchase(product.id, 'tls-env-buyer-2'), 409, 'SOLD_OUT');
    const reader = tlsClient(redisPort, certs.ca);
    await reader.connect();
    const keys = await reader.keys(`*${product.id}*`);
    reader.disconnect();
    expect(keys.some((key) => key.endsWith(':sold-out'))).toBe(true);
  });

  it('cannot use it without the CA (the certificate is verified) or without TLS', async () => {
    const untrusted = await startApi({ REDIS_URL: `rediss://:${PASSWORD}@localhost:${redisPort}` });
    await healthBecomes(untrusted.api, 503);
    const plaintext = await startApi({ REDIS_URL: `redis://:${PASSWORD}@localhost:${redisPort}`, NODE_EXTRA_CA_CERTS: certs.ca });
    await healthBecomes(plaintext.api, 503);
  });
});
