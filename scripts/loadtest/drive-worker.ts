/*
 * One generator thread of a run spread over worker threads (drive-workers.ts): it runs `drive` with
 * its share of the connections, takes attempt numbers from the counter every thread shares, meters
 * itself, and hands its figures and history back when the load is over.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { OpRecord } from '../history/format';
import { drive, DriveOptions } from './driver';
import { GeneratorMeter } from './generator-meter';
import { PurchaseHistory } from './purchase-history';
import { rehearsePurchases } from './purchase-rehearsal';
import { Recorder } from './recorder';
import { AttemptCounter } from './worker-split';

/** What a thread is given: the run's options without its recorder and history, and its share. */
export interface ThreadPlan {
  worker: number;
  options: Omit<DriveOptions, 'recorder' | 'history'>;
  counter: SharedArrayBuffer;
  recordHistory: boolean;
  progressEveryMs: number;
}

/** Counts a thread reports while it runs, for the live progress line. */
export interface ThreadProgress {
  requests: number;
  created: number;
  conflicts: number;
  unavailable: number;
}

export type FromThread =
  | { type: 'ready' }
  | { type: 'progress'; progress: ThreadProgress }
  /** The load is over for this thread: its meter's figures, before its records are gathered. */
  | { type: 'loaded'; figures: ReturnType<GeneratorMeter['stop']> }
  | { type: 'done'; recorder: ReturnType<Recorder['snapshot']>; ops: OpRecord[] }
  | { type: 'failed'; message: string };

export const progressOf = (recorder: Recorder): ThreadProgress => ({
  requests: recorder.requests,
  created: recorder.byStatus['201'] ?? 0,
  conflicts: recorder.byStatus['409'] ?? 0,
  unavailable: recorder.byStatus['503'] ?? 0,
});

/** The thread's own drive options: its plan's, with a recorder from `startedAt`, its history and sender names. */
function threadOptions(plan: ThreadPlan, startedAt: number): DriveOptions & { history?: PurchaseHistory } {
  const { productId, quantity } = plan.options;
  const senderPrefix = `w${plan.worker}.`;
  const recorder = new Recorder(startedAt);
  const history = plan.recordHistory ? new PurchaseHistory(productId, quantity, senderPrefix) : undefined;
  return { ...plan.options, recorder, history, senderPrefix };
}

/** The thread's purchase path run against a stand-in, with options shaped as `run` will shape them. */
function rehearse(plan: ThreadPlan): Promise<void> {
  return rehearsePurchases(threadOptions(plan, Date.now()));
}

async function run(plan: ThreadPlan, startedAt: number): Promise<void> {
  const port = parentPort!;
  const options = threadOptions(plan, startedAt);
  const { recorder, history } = options;
  const meter = new GeneratorMeter(startedAt);
  const ticker = setInterval(
    () => port.postMessage({ type: 'progress', progress: progressOf(recorder) } satisfies FromThread),
    plan.progressEveryMs,
  );
  meter.start();
  try {
    await drive(options, new AttemptCounter(plan.options.requests ?? Infinity, plan.counter));
  } finally {
    clearInterval(ticker);
  }
  port.postMessage({ type: 'loaded', figures: meter.stop(recorder.requests) } satisfies FromThread);
  // The history's records are built now, once the load is over and metered.
  port.postMessage({ type: 'done', recorder: recorder.snapshot(), ops: history?.ops() ?? [] } satisfies FromThread);
}

if (parentPort && (workerData as { plan?: ThreadPlan } | undefined)?.plan) {
  const plan = (workerData as { plan: ThreadPlan }).plan;
  const failed = (error: unknown) =>
    parentPort!.postMessage({ type: 'failed', message: String((error as Error)?.stack ?? error) } satisfies FromThread);
  parentPort.once('message', ({ startedAt }: { startedAt: number }) => {
    run(plan, startedAt).catch(failed);
  });
  rehearse(plan).then(() => parentPort!.postMessage({ type: 'ready' } satisfies FromThread), failed);
}
