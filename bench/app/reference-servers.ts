import { ChildProcess, spawn } from 'node:child_process';
import { API_NODE_FLAGS } from '../../scripts/infra/api-process';
import { stopChild } from './child-stop';

/**
 * The HTTP floor in Node on this machine: plain Fastify answering one route, nothing else, with the
 * API's accept backlog (main.ts) so that a spike meets the same kernel queue on both.
 */
const BARE_FASTIFY = `
const app = require('fastify')();
app.get('/live', async () => ({ status: 'ok' }));
app.listen({ port: 0, host: '127.0.0.1', backlog: 8192 }).then(() => console.log('PORT ' + app.server.address().port));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;

/**
 * What NestJS itself costs on top of that floor: one controller with the app's liveness route on
 * Nest's Fastify adapter, and nothing of the app (no guard, pipe, filter, hook or logger). The
 * decorators are applied as plain calls so that the program needs no compiler.
 */
const BARE_NEST = `
require('reflect-metadata');
const { Controller, Get, Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { FastifyAdapter } = require('@nestjs/platform-fastify');
class HealthController { live() { return { status: 'ok' }; } }
Get('live')(HealthController.prototype, 'live', Object.getOwnPropertyDescriptor(HealthController.prototype, 'live'));
Controller('health')(HealthController);
class AppModule {}
Module({ controllers: [HealthController] })(AppModule);
NestFactory.create(AppModule, new FastifyAdapter(), { logger: false }).then(async (app) => {
  await app.listen(0, '127.0.0.1');
  console.log('PORT ' + app.getHttpServer().address().port);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
});
`;

export interface ReferenceServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a reference program in its own process, with the V8 flags the API runs with. */
async function startProgram(label: string, program: string): Promise<ReferenceServer> {
  const child: ChildProcess = spawn(process.execPath, [...API_NODE_FLAGS, '-e', program], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((done, fail) => {
    let text = '';
    child.stdout!.on('data', (chunk) => {
      text += chunk;
      const match = /PORT (\d+)/.exec(text);
      if (match) done(Number(match[1]));
    });
    child.once('exit', (code) => fail(new Error(`${label} exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => stopChild(child),
  };
}

/** Bare Fastify's `GET /live`. */
export const startBareFastify = () => startProgram('bare fastify', BARE_FASTIFY);

/** Bare NestJS on Fastify: `GET /health/live`. */
export const startBareNest = () => startProgram('bare nest', BARE_NEST);
