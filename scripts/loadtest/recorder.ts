import { increment, perSecond } from './stats';
import { ProgressSnapshot, SecondBucket } from './types';

/** What one HTTP request came back with; `status` 0 and `error` set for transport failures. */
export interface RequestSample {
  status: number;
  code?: string;
  error?: string;
  latencyMs: number;
  finishedAt: number;
}

/** A recorder's figures as plain data, for a worker thread to hand to the run's recorder. */
export interface RecorderSnapshot {
  latencies: number[];
  byStatus: Record<string, number>;
  byCode: Record<string, number>;
  errors: Record<string, number>;
  attemptOutcomes: Record<string, number>;
  /** Each order this recorder saw created and when (client clock, ms since the epoch). */
  created: [orderId: string, userId: string, atMs: number][];
  requests: number;
  retries: number;
  attempts: number;
  firstSoldOutAt?: number;
  seconds: SecondBucket[];
}

/** Collects every response of the run: counts, latencies and per-second buckets. */
export class Recorder {
  readonly latencies: number[] = [];
  readonly byStatus: Record<string, number> = {};
  readonly byCode: Record<string, number> = {};
  readonly errors: Record<string, number> = {};
  readonly attemptOutcomes: Record<string, number> = {};
  /** Order ids of the 201s, deduplicated (an idempotent replay returns the same order). */
  readonly createdOrderIds = new Set<string>();
  requests = 0;
  retries = 0;
  /** The first SOLD_OUT answer (client clock), and how many orders the run had seen created by then. */
  firstSoldOutAt?: number;
  createdBySoldOut = 0;
  attempts = 0;
  private readonly seconds: SecondBucket[] = [];
  /** Each of `createdOrderIds` with its buyer and when it was seen, in the same order. */
  private readonly createdLog: RecorderSnapshot['created'] = [];
  private lastProgressRequests = 0;
  private lastProgressAt: number;

  constructor(readonly startedAt: number) {
    this.lastProgressAt = startedAt;
  }

  record(sample: RequestSample): void {
    this.requests++;
    const statusKey = sample.error ? 'error' : String(sample.status);
    increment(this.byStatus, statusKey);
    increment(this.byCode, outcomeKey(sample));
    if (sample.error) increment(this.errors, sample.error);
    else this.latencies.push(sample.latencyMs);
    if (sample.code === 'SOLD_OUT' && this.firstSoldOutAt === undefined) {
      this.firstSoldOutAt = sample.finishedAt;
      this.createdBySoldOut = this.createdOrderIds.size;
    }
    const second = Math.max(0, Math.floor((sample.finishedAt - this.startedAt) / 1000));
    while (this.seconds.length <= second) this.seconds.push({ second: this.seconds.length, total: 0, byStatus: {} });
    this.seconds[second].total++;
    increment(this.seconds[second].byStatus, statusKey);
  }

  recordCreated(orderId: string, userId: string): void {
    const known = this.createdOrderIds.size;
    if (this.createdOrderIds.add(orderId).size === known) return;
    this.createdLog.push([orderId, userId, Date.now()]);
  }

  /** Orders created per buyer, counted when asked (for the report) rather than at every 201. */
  get createdByUser(): Map<string, number> {
    const byUser = new Map<string, number>();
    for (const [, userId] of this.createdLog) byUser.set(userId, (byUser.get(userId) ?? 0) + 1);
    return byUser;
  }

  snapshot(): RecorderSnapshot {
    return {
      latencies: this.latencies,
      byStatus: this.byStatus,
      byCode: this.byCode,
      errors: this.errors,
      attemptOutcomes: this.attemptOutcomes,
      created: this.createdLog,
      requests: this.requests,
      retries: this.retries,
      attempts: this.attempts,
      firstSoldOutAt: this.firstSoldOutAt,
      seconds: this.seconds,
    };
  }

  /**
   * Adds a worker thread's figures to this recorder's (which then holds the whole run): counts
   * summed, seconds added bucket by bucket (every thread counts them from the same start), and the
   * sale's pace taken at the first SOLD_OUT any thread saw.
   */
  absorb(part: RecorderSnapshot): void {
    for (const latency of part.latencies) this.latencies.push(latency);
    for (const [into, from] of [
      [this.byStatus, part.byStatus],
      [this.byCode, part.byCode],
      [this.errors, part.errors],
      [this.attemptOutcomes, part.attemptOutcomes],
    ])
      for (const [key, count] of Object.entries(from)) increment(into, key, count);
    for (const [orderId, userId, atMs] of part.created) {
      if (this.createdOrderIds.has(orderId)) continue;
      this.createdOrderIds.add(orderId);
      this.createdLog.push([orderId, userId, atMs]);
    }
    this.requests += part.requests;
    this.retries += part.retries;
    this.attempts += part.attempts;
    for (const bucket of part.seconds) {
      while (this.seconds.length <= bucket.second)
        this.seconds.push({ second: this.seconds.length, total: 0, byStatus: {} });
      this.seconds[bucket.second].total += bucket.total;
      for (const [status, count] of Object.entries(bucket.byStatus))
        increment(this.seconds[bucket.second].byStatus, status, count);
    }
    if (
      part.firstSoldOutAt !== undefined &&
      (this.firstSoldOutAt === undefined || part.firstSoldOutAt < this.firstSoldOutAt)
    )
      this.firstSoldOutAt = part.firstSoldOutAt;
    if (this.firstSoldOutAt !== undefined) {
      const soldOutAt = this.firstSoldOutAt;
      this.createdBySoldOut = this.createdLog.filter(([, , atMs]) => atMs <= soldOutAt).length;
    }
  }

  recordAttemptOutcome(last: RequestSample): void {
    increment(this.attemptOutcomes, outcomeKey(last));
  }

  timeline(): SecondBucket[] {
    return this.seconds.map((bucket) => ({ ...bucket, byStatus: { ...bucket.byStatus } }));
  }

  progress(now: number): ProgressSnapshot {
    const snapshot: ProgressSnapshot = {
      elapsedS: (now - this.startedAt) / 1000,
      requests: this.requests,
      created: this.byStatus['201'] ?? 0,
      conflicts: this.byStatus['409'] ?? 0,
      unavailable: this.byStatus['503'] ?? 0,
      rps: perSecond(this.requests - this.lastProgressRequests, (now - this.lastProgressAt) / 1000),
    };
    this.lastProgressRequests = this.requests;
    this.lastProgressAt = now;
    return snapshot;
  }

  purchasesPerSecond(elapsedS: number): number {
    return perSecond(this.createdOrderIds.size, elapsedS);
  }
}

/** "201", "409 SOLD_OUT", "error ECONNREFUSED": the key outcomes are grouped by. */
export function outcomeKey(sample: RequestSample): string {
  if (sample.error) return `error ${sample.error}`;
  return sample.code ? `${sample.status} ${sample.code}` : String(sample.status);
}
