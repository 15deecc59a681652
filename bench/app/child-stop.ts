import type { ChildProcess } from 'node:child_process';

/** SIGTERM to a server the bench started, resolved once it has exited (at once if it already had). */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}
