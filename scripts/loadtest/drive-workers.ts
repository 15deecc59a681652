import { Worker } from 'node:worker_threads';
import type { HistoryLog } from '../history/writer';
import { drive, DriveOptions } from './driver';
import type { FromThread, ThreadPlan, ThreadProgress } from './drive-worker';
import { GeneratorMeter, GeneratorThreadFigures } from './generator-meter';
import { rehearsePurchases } from './purchase-rehearsal';
import { Recorder } from './recorder';
import { perSecond } from './stats';
import { ProgressSnapshot } from './types';
import { AttemptCounter, mergeThreadHistories, splitConnections, workerCount } from './worker-split';

/** Each worker thread's young generation, in MB (the sale's answers and records are born and die there). */
const YOUNG_GENERATION_MB = 64;

/**
 * Loads the thread's TypeScript the way the caller's process does (ts-node under `npm run
 * loadtest`, nothing registered under jest), then the entry itself.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (!require.extensions['.ts']) require(workerData.tsNode).register({ transpileOnly: true, project: workerData.tsconfig });
require(workerData.entry);
`;

/** The run's drive options, less what each thread has of its own; the threads' histories end in the run's. */
export type SharedDriveOptions = Omit<DriveOptions, 'senderPrefix' | 'history'> & { history?: HistoryLog };
/** What the threads are started with, before the run's recorder exists. */
export type ThreadSetup = Omit<SharedDriveOptions, 'recorder' | 'history'> & { recordHistory: boolean };

/** The load as the generator lived it: each thread's figures, its end, and the process's CPU over it. */
export interface LoadSpan {
  threads: GeneratorThreadFigures[];
  endedAt: number;
  processCpuMs: number;
}

export function spanSince(cpuAtStart: NodeJS.CpuUsage, threads: GeneratorThreadFigures[]): LoadSpan {
  const used = process.cpuUsage(cpuAtStart);
  return { threads, endedAt: Date.now(), processCpuMs: (used.user + used.system) / 1000 };
}

/** The drive options a thread is sent: plain data only (a caller's callbacks cannot cross threads). */
function cloneable(o: ThreadSetup): ThreadPlan['options'] {
  const { urls, productId, quantity, users, connections, durationS, requests, maxRetries } = o;
  const { maxRetryDelayMs, requestTimeoutMs, runId, payEvery, cancelEvery } = o;
  return {
    ...{ urls, productId, quantity, users, connections, durationS, requests, maxRetries },
    ...{ maxRetryDelayMs, requestTimeoutMs, runId, payEvery, cancelEvery },
  };
}

/**
 * The purchase load on `workers` threads, each with its own connections, or on this thread when
 * there is one: `open()` starts them before the run's clock starts (a thread takes a moment to load),
 * `run()` drives the load, then adds every thread's figures to the run's recorder and history.
 */
export class GeneratorThreads {
  private readonly live = new Map<number, ThreadProgress>();
  private lastProgress = { at: 0, requests: 0 };
  private startedAt = 0;

  private constructor(
    private readonly threads: Worker[],
    private readonly counter: AttemptCounter,
  ) {}

  static async open(setup: ThreadSetup, workers: number, progressEveryMs = 1000): Promise<GeneratorThreads> {
    const count = workerCount(workers, setup.connections);
    const counter = new AttemptCounter(setup.requests ?? Infinity);
    if (count === 1) {
      await rehearsePurchases({ ...cloneable(setup), recorder: new Recorder(Date.now()) });
      return new GeneratorThreads([], counter);
    }
    const threads = splitConnections(setup.connections, count).map((connections, worker) => {
      const plan: ThreadPlan = {
        worker,
        options: { ...cloneable(setup), connections },
        counter: counter.shared,
        recordHistory: setup.recordHistory,
        progressEveryMs,
      };
      return new Worker(BOOTSTRAP, {
        eval: true,
        // A larger young generation than a worker thread's default: a purchase's short-lived objects
        // are collected in fewer scavenges (about 4% less of the generator's CPU in the measured sale).
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
        workerData: {
          plan,
          entry: require.resolve('./drive-worker'),
          tsNode: require.resolve('ts-node'),
          tsconfig: require.resolve('../../tsconfig.json'),
        },
      });
    });
    const opened = new GeneratorThreads(threads, counter);
    try {
      await Promise.all(threads.map((thread) => opened.next(thread, 'ready')));
    } catch (error) {
      await opened.close();
      throw error;
    }
    return opened;
  }

  get workers(): number {
    return Math.max(1, this.threads.length);
  }

  /**
   * Drives the load from `options.recorder.startedAt`, `cpuAtStart` the process's CPU then: each
   * thread's meter figures (in worker order), and when the load ended and the process's CPU over it
   * (gathering the threads' figures afterwards is not the load's).
   */
  async run(options: SharedDriveOptions, cpuAtStart: NodeJS.CpuUsage): Promise<LoadSpan> {
    const { recorder, history } = options;
    if (!this.threads.length) {
      const meter = new GeneratorMeter(recorder.startedAt);
      meter.start();
      await drive(options, this.counter);
      return spanSince(cpuAtStart, [meter.stop(recorder.requests)]);
    }
    this.startedAt = recorder.startedAt;
    this.lastProgress = { at: recorder.startedAt, requests: 0 };
    try {
      // Both answers awaited before the start, so that neither can arrive unheard.
      const loaded = Promise.all(this.threads.map((thread) => this.next(thread, 'loaded')));
      const done = Promise.all(this.threads.map((thread) => this.next(thread, 'done')));
      // A failure rejects both; the first await reports it, the second is not left unhandled.
      done.catch(() => undefined);
      for (const thread of this.threads) thread.postMessage({ startedAt: recorder.startedAt });
      const span = spanSince(
        cpuAtStart,
        (await loaded).map(({ figures }) => figures),
      );
      const results = await done;
      for (const result of results) recorder.absorb(result.recorder);
      if (history) {
        const merged = mergeThreadHistories([history.ops, ...results.map((result) => result.ops)]);
        history.ops.splice(0, history.ops.length, ...merged);
      }
      return span;
    } finally {
      await this.close();
    }
  }

  /** The live progress line's figures, summed over the threads' latest reports. */
  progress(now: number): ProgressSnapshot {
    const sum = { requests: 0, created: 0, conflicts: 0, unavailable: 0 };
    for (const p of this.live.values())
      for (const key of Object.keys(sum) as (keyof ThreadProgress)[]) sum[key] += p[key];
    const rps = perSecond(sum.requests - this.lastProgress.requests, (now - this.lastProgress.at) / 1000);
    this.lastProgress = { at: now, requests: sum.requests };
    return { ...sum, rps, elapsedS: (now - this.startedAt) / 1000 };
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.terminate()));
  }

  /** The thread's next message of `type`, its progress reports noted on the way; its failure rejects. */
  private next<T extends FromThread['type']>(thread: Worker, type: T): Promise<Extract<FromThread, { type: T }>> {
    const index = this.threads.indexOf(thread);
    return new Promise((resolve, reject) => {
      const onMessage = (message: FromThread) => {
        if (message.type === 'progress') this.live.set(index, message.progress);
        else if (message.type === 'failed')
          settle(() => reject(new Error(`generator thread ${index}: ${message.message}`)));
        else if (message.type === type) settle(() => resolve(message as Extract<FromThread, { type: T }>));
      };
      const onError = (error: Error) => settle(() => reject(error));
      const onExit = (code: number) => settle(() => reject(new Error(`generator thread ${index} exited (${code})`)));
      const settle = (then: () => void) => {
        thread.off('message', onMessage).off('error', onError).off('exit', onExit);
        then();
      };
      thread.on('message', onMessage).on('error', onError).on('exit', onExit);
    });
  }
}
