import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they interleaved. */
  output: string;
}

/**
 * Runs one of the project's TypeScript command-line scripts (`scripts/...`) as `npm run` would, in
 * a child process from the project's root, with `env` over this process's environment.
 */
export function runScript(script: string, args: string[], env: Record<string, string> = {}): Promise<ScriptRun> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', script, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    const run: ScriptRun = { code: null, stdout: '', stderr: '', output: '' };
    child.stdout.on('data', (chunk: Buffer) => ((run.stdout += chunk), (run.output += chunk)));
    child.stderr.on('data', (chunk: Buffer) => ((run.stderr += chunk), (run.output += chunk)));
    child.on('close', (code) => done({ ...run, code }));
  });
}
