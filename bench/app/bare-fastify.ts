import autocannon from 'autocannon';
import Fastify from 'fastify';

/**
 * What a POST with a small JSON body costs plain Fastify (no Nest, no app code) against a GET,
 * on this machine, with the bench's connection count. It separates the framework's own
 * body-reading cost from ours: `bash scripts/run-ts.sh bench/app/bare-fastify.ts`.
 */
async function main(): Promise<void> {
  const app = Fastify();
  app.get('/live', async () => ({ status: 'ok' }));
  app.post('/live', async () => ({ status: 'ok' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const load = async (method: 'GET' | 'POST', contentType?: string, body?: string): Promise<number> => {
    const headers: Record<string, string> = { authorization: 'Bearer a.b.c', ...(contentType ? { 'content-type': contentType } : {}) };
    const result = await autocannon({ url: `http://127.0.0.1:${port}/live`, method, connections: 128, duration: 5, headers, body });
    return result.requests.average;
  };
  for (let round = 1; round <= 2; round++) {
    const get = await load('GET');
    const postJson = await load('POST', 'application/json', '{"quantity":1}');
    const postEmpty = await load('POST');
    const getWithBody = await load('GET', 'application/json', '{"quantity":1}');
    const ratio = (n: number) => `${n.toFixed(0)} req/s (${((n / get) * 100).toFixed(0)}%)`;
    console.log(`round ${round}: GET ${get.toFixed(0)} req/s; POST JSON ${ratio(postJson)}; POST without body ${ratio(postEmpty)}; GET with an (unread) body ${ratio(getWithBody)}`);
  }
  await app.close();
}

void main();
