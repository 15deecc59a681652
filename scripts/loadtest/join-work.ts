/*
 * The client's side of a waiting room's join work. The sale's challenge (GET
 * /products/:id/queue/challenge) is the same for every client in its minute; each account makes its
 * own puzzle from it, x = H(challenge, nonce, user id) mod modulus with a fresh nonce and its token's
 * `sub`, and solves y = x^(2^squarings) mod modulus by `squarings` sequential modular squarings
 * (each needs the previous one: more cores do not shorten one solve). The load generator is one
 * process, so solves run on a few worker threads and the event loop keeps driving every other
 * client meanwhile.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { JoinWorkAnswer } from '../../apps/api/src/waiting-room/join-work/join-work';
import { newJoinWorkNonce, type JoinWorkPuzzle } from '../../apps/api/src/waiting-room/join-work/solve';
import { Population } from './populations';

/** The API's own client solver (framework-free): the main thread's reference for the workers' loop. */
export { joinWorkBase, newJoinWorkNonce, solveJoinWork } from '../../apps/api/src/waiting-room/join-work/solve';

/** What GET /products/:id/queue/challenge gives to solve: the challenge, N in hex, and T. */
export type JoinWorkChallenge = JoinWorkPuzzle;

/**
 * solveJoinWork for a worker thread (plain JS: a worker does not load TypeScript; the spec holds
 * its answers to solveJoinWork's and the API's check): x from the challenge, nonce and user id as
 * joinWorkBase makes it, then the squarings, timed on the thread's own CPU clock.
 */
const WORKER_SOURCE = `
const { createHash } = require('node:crypto');
const { parentPort } = require('node:worker_threads');
const big = (hex) => BigInt(/^0x/i.test(hex) ? hex : '0x' + hex);
parentPort.on('message', ({ id, challenge, modulus, squarings, nonce, userId }) => {
  try {
    const started = performance.now();
    const cpu = process.threadCpuUsage ? process.threadCpuUsage() : undefined;
    const n = big(modulus);
    const text = challenge + '\\n' + nonce + '\\n' + userId + '\\n';
    const first = createHash('sha512').update(text + '1').digest('hex');
    const second = createHash('sha512').update(text + '2').digest('hex');
    let y = BigInt('0x' + first + second) % n;
    for (let i = 0; i < squarings; i++) y = (y * y) % n;
    const wallMs = performance.now() - started;
    const used = cpu ? process.threadCpuUsage(cpu) : undefined;
    parentPort.postMessage({ id, solution: y.toString(16), wallMs, cpuMs: used ? (used.user + used.system) / 1000 : wallMs });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error) });
  }
});
`;

export interface Solved {
  /** The join's `work`: the challenge, the nonce and the solution (hex). */
  work: JoinWorkAnswer;
  /** CPU the solve took on its thread, its time there, and its wait for a free thread. */
  cpuMs: number;
  wallMs: number;
  queueMs: number;
}

interface Task {
  id: number;
  puzzle: JoinWorkChallenge;
  userId: string;
  nonce: string;
  queuedAt: number;
  resolve: (solved: Solved) => void;
  reject: (error: Error) => void;
}

/**
 * `size` solver threads (default: the machine's cores, os.availableParallelism()), started on the
 * first solve. The two populations are served in turn when both have solves waiting: in life each
 * person solves on a device of their own and the operator on its machines, so neither side's
 * burst should hold up the other's (the bots' joins all come at the first instant). A solve's wait
 * for a thread is the generator's, not a client's: it is reported beside the solve's own time.
 */
export class JoinWorkPool {
  private readonly idle: Worker[] = [];
  private readonly workers: Worker[] = [];
  private readonly queues: Record<Population, Task[]> = { person: [], bot: [] };
  private readonly running = new Map<Worker, Task>();
  private nextId = 0;
  private lastServed: Population = 'bot';

  constructor(readonly size = availableParallelism()) {}

  /**
   * Solves `puzzle` for the account `userId` (its token's `sub`) of population `who`, with `nonce`
   * (a fresh one unless given): solveJoinWork(puzzle, userId, nonce) on a worker thread.
   */
  solve(puzzle: JoinWorkChallenge, userId: string, who: Population, nonce = newJoinWorkNonce()): Promise<Solved> {
    return new Promise((resolve, reject) => {
      const task = { id: this.nextId++, puzzle, userId, nonce, queuedAt: performance.now(), resolve, reject };
      this.queues[who].push(task);
      if (this.workers.length < this.size) this.start();
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
    this.idle.length = 0;
  }

  private start(): void {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (m: { id: number; solution?: string; cpuMs: number; wallMs: number; error?: string }) => {
      const task = this.running.get(worker);
      this.running.delete(worker);
      this.idle.push(worker);
      if (task) {
        if (m.error !== undefined || m.solution === undefined) task.reject(new Error(`join work: ${m.error}`));
        else
          task.resolve({
            work: { challenge: task.puzzle.challenge, nonce: task.nonce, solution: m.solution },
            cpuMs: m.cpuMs,
            wallMs: m.wallMs,
            queueMs: Math.max(0, performance.now() - task.queuedAt - m.wallMs),
          });
      }
      this.dispatch();
    });
    worker.on('error', (error) => {
      this.running.get(worker)?.reject(error);
      this.running.delete(worker);
    });
    this.workers.push(worker);
    this.idle.push(worker);
  }

  private dispatch(): void {
    while (this.idle.length) {
      const first: Population = this.lastServed === 'bot' ? 'person' : 'bot';
      const second: Population = first === 'bot' ? 'person' : 'bot';
      const from = this.queues[first].length ? first : second;
      const task = this.queues[from].shift();
      if (!task) return;
      this.lastServed = from;
      const worker = this.idle.pop()!;
      this.running.set(worker, task);
      const { challenge, modulus, squarings } = task.puzzle;
      worker.postMessage({ id: task.id, challenge, modulus, squarings, nonce: task.nonce, userId: task.userId });
    }
  }
}
