import { ContenderSpec } from './lockers/types';
import { HotRunResult } from './hot-workers';

/** Parent → child messages for scenario (c). */
export type ToChild =
  | { type: 'prepare'; port: number; spec: ContenderSpec; warmKey: string; ttlMs: number }
  | {
      type: 'go';
      key: string;
      workers: number;
      idPrefix: string;
      startAt: number;
      durationMs: number;
      criticalMs: number;
      ttlMs: number;
    }
  | { type: 'close' }
  | { type: 'exit' };

/** Child → parent messages. */
export type FromChild =
  | { type: 'booted' }
  | { type: 'ready' }
  | { type: 'closed' }
  | { type: 'done'; run: HotRunResult; clientCommands: Record<string, number> }
  | { type: 'error'; message: string };
