import { ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { FromChild, ToChild } from './child-protocol';

/** Long-lived worker processes for scenario (c), started once so ts-node start-up stays out of cells. */
export class ChildPool {
  private constructor(private readonly children: ChildProcess[]) {}

  /** Resolves once every child has loaded its code and can take work. */
  static async start(count: number): Promise<ChildPool> {
    const children = Array.from({ length: count }, () =>
      fork(join(__dirname, 'child.ts'), [], {
        execArgv: ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    await Promise.all(
      children.map((child) => new Promise<void>((resolve) => child.once('message', (msg: FromChild) => msg.type === 'booted' && resolve()))),
    );
    return new ChildPool(children);
  }

  get size(): number {
    return this.children.length;
  }

  /** Sends one message per child (by index) and resolves with each child's answer of `expect` type. */
  async ask<T extends FromChild['type']>(messages: (i: number) => ToChild, expect: T): Promise<Extract<FromChild, { type: T }>[]> {
    return Promise.all(
      this.children.map(
        (child, i) =>
          new Promise<Extract<FromChild, { type: T }>>((resolve, reject) => {
            const onMessage = (msg: FromChild) => {
              child.off('message', onMessage);
              if (msg.type === expect) resolve(msg as Extract<FromChild, { type: T }>);
              else reject(new Error(`child ${i}: ${msg.type === 'error' ? msg.message : `unexpected ${msg.type}`}`));
            };
            child.on('message', onMessage);
            child.send(messages(i));
          }),
      ),
    );
  }

  stop(): void {
    for (const child of this.children) if (child.connected) child.send({ type: 'exit' } satisfies ToChild);
  }
}
