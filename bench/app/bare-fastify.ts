import { ChildProcess, spawn } from 'node:child_process';
import { API_NODE_FLAGS } from '../../scripts/infra/api-process';
import { stopChild } from './child-stop';

/**
 * The HTTP floor in Node on this machine: plain Fastify answering one route, nothing else, with the
 * API's accept backlog (main.ts) so that a spike meets the same kernel queue on both.
 */
const SERVER = `
const app = require('fastify')();
app.get('/live', async () => ({ status: 'ok' }));
app.listen({ port: 0, host: '127.0.0.1', backlog: 8192 }).then(() => console.log('PORT ' + app.server.address().port));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

export interface BareFastify {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts the floor in its own process, with the V8 flags the API runs with. */
export async function startBareFastify(): Promise<BareFastify> {
  const child: ChildProcess = spawn(process.execPath, [...API_NODE_FLAGS, '-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done, fail) => {
    let text = '';
    child.stdout!.on('data', (chunk) => {
      text += chunk;
      const match = /PORT (\d+)/.exec(text);
      if (match) done(Number(match[1]));
    });
    child.once('exit', (code) => fail(new Error(`bare fastify exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => stopChild(child),
  };
}
