/*
 * A run several generators share, one per machine (`--run-id X --role lead|follower`): the lead
 * creates the product (or reads an existing one) and audits the sale at the end; each follower
 * buys the lead's product (`--product`) and leaves the audit to the lead and to check-history,
 * which judges every generator's history as one sale. Every generator measures its clock against
 * the API's before its first purchase and writes it in its history's meta.
 */
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClockOffset } from '../history/format';
import { ApiClient } from './api-client';

export type SharedRole = 'lead' | 'follower';

export interface SharedRunOptions {
  role: SharedRole;
  /** This generator's name, unique within the run: its users and keys are `lt-<runId>.<generator>-<n>`. */
  generator: string;
  /** All generators begin buying at this moment of the API's clock (each by its measured offset). */
  startAtMs?: number;
}

/** Letters, digits, `_` and `-`: it goes into user ids, idempotency keys and the sku. */
const RUN_ID = /^[A-Za-z0-9_-]{1,40}$/;
/** No `-`: a generator's user prefix `lt-<run>.<generator>-` must not begin another generator's. */
const GENERATOR = /^[A-Za-z0-9_]{1,40}$/;

/** The host's name and the process id, in the letters a generator name may use. */
export function defaultGenerator(): string {
  return `${hostname()
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .slice(0, 30)}_${process.pid}`;
}

/** What a shared run's flags get wrong, as sentences for the usage error. */
export function sharedRunProblems(o: {
  runId?: string;
  shared?: SharedRunOptions;
  productId?: string;
  stock?: number;
  check?: boolean;
  waitingRoom?: boolean;
  bots?: number;
}): string[] {
  const s = o.shared;
  if (!s) return [];
  const problems: string[] = [];
  if (o.runId === undefined) problems.push('--role, --generator and --start-at need --run-id');
  else if (!RUN_ID.test(o.runId)) problems.push(`--run-id must be 1 to 40 letters, digits, _ or -, got "${o.runId}"`);
  if (s.role !== 'lead' && s.role !== 'follower') problems.push('--run-id needs --role lead or --role follower');
  if (!GENERATOR.test(s.generator))
    problems.push(`--generator must be 1 to 40 letters, digits or _, got "${s.generator}"`);
  if (s.role === 'follower' && o.productId === undefined)
    problems.push("--role follower needs --product: the lead's product (the lead prints the command)");
  if (o.check)
    problems.push(
      "--check judges one generator's history: judge a shared run with npm run check-history over every generator's file",
    );
  if (o.waitingRoom || o.bots !== undefined)
    problems.push('--run-id drives plain purchases: not --waiting-room or --bots');
  if (s.startAtMs !== undefined && !Number.isFinite(s.startAtMs))
    problems.push('--start-at must be a date and time, e.g. 2030-01-15T08:00:00Z');
  return problems;
}

/** Users and keys of one generator of a run: unique across the run's generators. */
export const generatorTag = (runId: string, generator: string): string => `${runId}.${generator}`;

/** Waits until the API's clock, as this generator's clock plus the measured offset, reaches the start. */
export async function waitForStart(startAtMs: number, clock: ClockOffset): Promise<void> {
  const waitMs = startAtMs - (Date.now() + clock.offsetMs);
  if (waitMs > 0) await sleep(waitMs);
}

/**
 * The lead audits once the other generators are done: when the product's stock has held still for
 * `quietMs` (each follower stops on its own --duration or --requests, and a sold-out product holds
 * still at once), or after `maxMs` in any case. The audit's snapshot is consistent either way; this
 * keeps it from chasing a stock that followers are still moving.
 */
export async function waitForStockAtRest(
  api: ApiClient,
  productId: string,
  quietMs = 2000,
  maxMs = 60_000,
  pollMs = 250,
): Promise<void> {
  const until = Date.now() + maxMs;
  let last = (await api.getProduct(productId)).stock;
  let stillSince = Date.now();
  while (Date.now() - stillSince < quietMs && Date.now() < until) {
    await sleep(pollMs);
    const stock = (await api.getProduct(productId)).stock;
    if (stock !== last) [last, stillSince] = [stock, Date.now()];
  }
}
