/*
 * CPU per request of the HTTP clients the load generator could use, on this machine: node:http's
 * keep-alive Agent, undici's Pool (request()) and Client (dispatch()) when `--undici DIR` names an
 * installed copy, and the hand-written SocketTransport. Each client sends purchase-shaped POSTs
 * (a bearer token, an Idempotency-Key, a JSON body) to a server in a child process that answers as
 * the API does (a 201 with a JSON order); only the client's own CPU is counted. Clients take turns
 * over several rounds so that the machine's drift falls on all of them.
 *
 *   flock /tmp/bench.lock bash scripts/run-ts.sh scripts/loadtest/client-cost.ts [--requests 20000]
 *     [--connections 64] [--rounds 3] [--undici node_modules/undici]
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { HttpAnswer, HttpTransport } from './http-transport';
import { SocketTransport } from './socket-transport';

type Send = (url: string, headers: Record<string, string>, body: string) => Promise<HttpAnswer>;
interface ClientUnderTest {
  name: string;
  send: Send;
  close: () => unknown;
}

const SERVER_SOURCE = `
const http = require('node:http');
let n = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const body = JSON.stringify({ id: String(++n), productId: '1', userId: 'u', quantity: 1, status: 'PENDING_PAYMENT', createdAt: new Date().toISOString() });
    res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'purchase-id': req.headers['idempotency-key'] });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

/** The part of undici measured here: it is not a dependency, but loaded from `--undici DIR`. */
interface Undici {
  Pool: new (
    origin: string,
    options: object,
  ) => {
    request(options: object): Promise<{
      statusCode: number;
      headers: Record<string, string>;
      body: { text(): Promise<string> };
    }>;
    close(): Promise<void>;
  };
  Client: new (
    origin: string,
    options: object,
  ) => { dispatch(options: object, handler: object): boolean; close(): Promise<void> };
}

function undiciClients(dir: string, origin: string, connections: number): ClientUnderTest[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const undici = require(resolve(dir)) as Undici;
  const pool = new undici.Pool(origin, { connections, pipelining: 1 });
  const viaRequest: Send = async (url, headers, body) => {
    const res = await pool.request({ path: new URL(url).pathname, method: 'POST', headers, body });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };
  const clients = Array.from({ length: connections }, () => new undici.Client(origin, { pipelining: 1 }));
  let next = 0;
  const viaDispatch: Send = (url, headers, body) =>
    new Promise((done, fail) => {
      const chunks: Buffer[] = [];
      let status = 0;
      let answerHeaders: Record<string, string> = {};
      clients[next++ % connections].dispatch(
        { path: new URL(url).pathname, method: 'POST', headers, body },
        {
          onRequestStart() {},
          onResponseStart(_c: unknown, code: number, h: Record<string, string>) {
            status = code;
            answerHeaders = h;
          },
          onResponseData(_c: unknown, chunk: Buffer) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            done({ status, headers: answerHeaders, body: Buffer.concat(chunks).toString('utf8') });
          },
          onResponseError(_c: unknown, error: Error) {
            fail(error);
          },
        },
      );
    });
  return [
    { name: 'undici Pool.request', send: viaRequest, close: () => pool.close() },
    { name: 'undici Client.dispatch', send: viaDispatch, close: () => Promise.all(clients.map((c) => c.close())) },
  ];
}

async function cpuPerRequest(client: ClientUnderTest, url: string, requests: number, connections: number) {
  const token = `Bearer ${'x'.repeat(180)}`;
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      const n = next++;
      const answer = await client.send(
        url,
        { authorization: token, 'content-type': 'application/json', 'idempotency-key': `k-${n}` },
        '{"quantity":1}',
      );
      if (answer.status !== 201 || !(JSON.parse(answer.body) as { id?: string }).id) throw new Error('bad answer');
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const used = process.cpuUsage(cpu);
  return {
    cpuMs: (used.user + used.system) / 1000 / requests,
    perSecond: requests / ((performance.now() - started) / 1000),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      connections: { type: 'string', default: '64' },
      rounds: { type: 'string', default: '3' },
      undici: { type: 'string' },
    },
  });
  const requests = Number(values.requests);
  const connections = Number(values.connections);
  const server = spawn(process.execPath, ['-e', SERVER_SOURCE], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((done) => server.once('message', (m) => done(Number(m))));
  const origin = `http://127.0.0.1:${port}`;
  const url = `${origin}/products/1/purchase`;
  const http = new HttpTransport(connections, 10_000);
  const socket = new SocketTransport(connections, 10_000);
  const clients: ClientUnderTest[] = [
    { name: 'node:http Agent', send: (u, h, b) => http.post(u, h, b), close: () => http.close() },
    ...(values.undici ? undiciClients(values.undici, origin, connections) : []),
    { name: 'SocketTransport', send: (u, h, b) => socket.post(u, h, b), close: () => socket.close() },
  ];
  const figures = new Map<string, number[]>(clients.map((c) => [c.name, []]));
  for (const client of clients) await cpuPerRequest(client, url, Math.min(2000, requests), connections);
  for (let round = 0; round < Number(values.rounds); round++)
    for (const client of clients) {
      const { cpuMs, perSecond } = await cpuPerRequest(client, url, requests, connections);
      figures.get(client.name)?.push(cpuMs);
      console.log(
        `round ${round + 1}  ${client.name.padEnd(24)} ${(cpuMs * 1000).toFixed(1)} µs CPU/request  ${perSecond.toFixed(0)} req/s`,
      );
    }
  for (const [name, cpu] of figures) {
    const sorted = [...cpu].sort((a, b) => a - b);
    console.log(
      `median ${name.padEnd(24)} ${(sorted[Math.floor(sorted.length / 2)] * 1000).toFixed(1)} µs CPU/request`,
    );
  }
  for (const client of clients) await client.close();
  server.kill();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
