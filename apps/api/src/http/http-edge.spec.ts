import Fastify, { FastifyInstance } from 'fastify';
import { loadConfig } from '../config/app-config';
import { edgeServerOptions } from './http-edge';

/** A bare Fastify with the edge's server options, answering what it believes about the caller. */
async function serverFor(env: Record<string, string>): Promise<FastifyInstance> {
  const server = Fastify(edgeServerOptions(loadConfig({ NODE_ENV: 'test', ...env }).edge));
  server.get('/whoami', (request) => ({ ip: request.ip, id: request.id }));
  await server.ready();
  return server;
}

const whoami = async (server: FastifyInstance, remoteAddress: string, headers: Record<string, string> = {}) =>
  (await server.inject({ method: 'GET', url: '/whoami', remoteAddress, headers })).json<{ ip: string; id: string }>();

describe('edge server options', () => {
  const forwarded = { 'x-forwarded-for': '203.0.113.9, 10.0.0.5' };

  it('believes no X-Forwarded-For by default: the address is the peer', async () => {
    const server = await serverFor({});
    await expect(whoami(server, '198.51.100.7', forwarded)).resolves.toMatchObject({ ip: '198.51.100.7' });
    await server.close();
  });

  it('with a hop count, believes that many hops and no more', async () => {
    const server = await serverFor({ TRUST_PROXY: '1' });
    await expect(whoami(server, '10.0.0.1', forwarded)).resolves.toMatchObject({ ip: '10.0.0.5' });
    await server.close();
  });

  it('with proxy addresses, believes only those proxies', async () => {
    const server = await serverFor({ TRUST_PROXY: '10.0.0.0/8' });
    await expect(whoami(server, '10.0.0.1', forwarded)).resolves.toMatchObject({ ip: '203.0.113.9' });
    await expect(whoami(server, '198.51.100.7', forwarded)).resolves.toMatchObject({ ip: '198.51.100.7' });
    await server.close();
  });

  it('takes an acceptable X-Request-Id as the request id and generates one otherwise', async () => {
    const server = await serverFor({});
    await expect(whoami(server, '127.0.0.1', { 'x-request-id': 'shop-42' })).resolves.toMatchObject({ id: 'shop-42' });
    const replaced = await whoami(server, '127.0.0.1', { 'x-request-id': 'x'.repeat(200) });
    expect(replaced.id).toMatch(/^[0-9a-f-]{36}$/);
    await server.close();
  });
});
