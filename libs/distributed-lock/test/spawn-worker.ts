import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** Starts a worker of test/workers in its own Node process (TypeScript through ts-node, no type check). */
export function spawnWorker(
  args: Array<string | number>,
  worker = 'lock-worker.ts',
): ChildProcess & { lines: string[]; nextLine(): Promise<string>; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register/transpile-only', join(__dirname, 'workers', worker), ...args.map(String)],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) {
      const resolve = waiting.shift();
      if (resolve) resolve(line);
      else lines.push(line);
    }
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void exited.then((code) => {
    if (code) process.stderr.write(`lock worker exited ${code}: ${stderr}\n`);
  });
  return Object.assign(child, {
    lines,
    exited,
    nextLine: () =>
      lines.length > 0
        ? Promise.resolve(lines.shift() as string)
        : new Promise<string>((resolve) => waiting.push(resolve)),
  });
}
