/*
 * The waiting-room flow's two populations: people (one account and one client address each,
 * arriving over the pre-queue window, polling when told, a human reaction time before buying)
 * and a bot operator (many accounts over a few addresses, machine speed). Pure: who is who, from
 * which address, when they arrive, and what each population won.
 */
import { percentile } from './stats';
import { BuyerTrace } from './waiting-room-trace';

export type Population = 'person' | 'bot';

/** A person's reaction time after the ADMITTED answer, drawn uniformly from [minMs, maxMs]. */
export interface ReactionRange {
  minMs: number;
  maxMs: number;
}

/** People read, decide and tap: 1.5–3 s, uniformly (the default of runs with bots or a pre-queue). */
export const DEFAULT_REACTION: ReactionRange = { minMs: 1500, maxMs: 3000 };
/** The buyers of runs without bots or pre-queue buy at once, as they always did. */
export const NO_REACTION: ReactionRange = { minMs: 0, maxMs: 0 };

/** Addresses per /24-like block: .1 to .254 of the last octet. */
const PER_BLOCK = 254;
/** People are 127.0.1.1 – 127.0.255.254 (or 10.0.x.y remotely): one each. */
export const MAX_PEOPLE_ADDRESSES = 255 * PER_BLOCK;
/** Bot addresses are 127.1.0.1 – 127.1.255.254 (or 10.1.x.y remotely). */
export const MAX_BOT_ADDRESSES = 256 * PER_BLOCK;

/** `--reaction-ms`: `MS` (fixed) or `MIN-MAX` (uniform), integers >= 0. */
export function parseReaction(text: string): ReactionRange {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  if (!match)
    throw new Error(`--reaction-ms must be MS or MIN-MAX in whole milliseconds (e.g. 1500-3000), got "${text}"`);
  const minMs = Number(match[1]);
  const maxMs = match[2] === undefined ? minMs : Number(match[2]);
  if (maxMs < minMs) throw new Error(`--reaction-ms ${text}: MIN must not exceed MAX`);
  return { minMs, maxMs };
}

export function reactionDelayMs(range: ReactionRange, random: () => number = Math.random): number {
  return Math.round(range.minMs + (range.maxMs - range.minMs) * random());
}

/**
 * Arrival offsets (ms from the run's start) of `count` people spread over `windowMs`: one in each
 * of `count` equal slices, at a random point of it (so the arrival rate is even, not lumpy).
 * All 0 without a window: everyone at once, as before pre-queues.
 */
export function arrivalOffsetsMs(count: number, windowMs: number, random: () => number = Math.random): number[] {
  if (!(windowMs > 0)) return new Array<number>(count).fill(0);
  return Array.from({ length: count }, (_, i) => Math.floor(((i + random()) * windowMs) / count));
}

function address(first: number, second: number, index: number, blockOffset: number): string {
  const block = blockOffset + Math.floor(index / PER_BLOCK);
  return `${first}.${second}.${block}.${1 + (index % PER_BLOCK)}`;
}

/**
 * Person i's client address: 127.0.1.1, 127.0.1.2, ... against loopback (a real source address,
 * Linux routes all of 127/8 to lo); 10.0.1.1, ... as the synthetic X-Forwarded-For of a remote run.
 */
export function personAddress(i: number, loopback: boolean): string {
  if (!(Number.isInteger(i) && i >= 0 && i < MAX_PEOPLE_ADDRESSES))
    throw new RangeError(`person ${i}: at most ${MAX_PEOPLE_ADDRESSES} people have an address of their own`);
  return address(loopback ? 127 : 10, 0, i, 1);
}

/** Bot address j: 127.1.0.1, 127.1.0.2, ... (10.1.0.1, ... remotely). */
export function botAddress(j: number, loopback: boolean): string {
  if (!(Number.isInteger(j) && j >= 0 && j < MAX_BOT_ADDRESSES))
    throw new RangeError(`bot address ${j}: at most ${MAX_BOT_ADDRESSES} bot addresses`);
  return address(loopback ? 127 : 10, 1, j, 0);
}

/**
 * The /64 a rotating bot operator sends from (a documentation prefix, RFC 3849): one home line's
 * IPv6 allocation, where every account can claim a fresh address.
 */
export const BOT_IPV6_PREFIX = '2001:db8:b07:64';

/** Bot account k's own address inside BOT_IPV6_PREFIX's /64, as an X-Forwarded-For claims it. */
export function rotatedBotAddress(k: number): string {
  if (!(Number.isInteger(k) && k >= 0 && k < 2 ** 32)) throw new RangeError(`bot ${k}: outside the rotation`);
  return `${BOT_IPV6_PREFIX}:${(k >>> 16).toString(16)}:${(k & 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
}

/** Which of the operator's `addresses` bot account k sends from: round-robin, so they hold as even a share as can be. */
export const botAddressIndex = (k: number, addresses: number): number => k % addresses;

export interface AccountPlan {
  kind: Population;
  /** Index within its population. */
  index: number;
  /** The client address it sends from (source address, or X-Forwarded-For). */
  address: string;
  /** For bots: which of the operator's addresses; for people: its own index. */
  addressIndex: number;
  /** When it arrives, ms from the run's start. */
  arriveAfterMs: number;
  /** Its pause between the ADMITTED answer and the purchase (0 for bots). */
  reactionMs: number;
  /**
   * The address it claims in X-Forwarded-For while sending from `address` (a trusted loopback
   * source): a bot operator rotating through one IPv6 /64, an address per account.
   */
  claims?: string;
}

/** Everyone of the run, people first (in the order of their user ids), then the bots. */
export function planAccounts(
  p: {
    people: number;
    bots: number;
    botAddresses: number;
    preQueueMs: number;
    reaction: ReactionRange;
    loopback: boolean;
    /** Each bot claims an address of its own inside one IPv6 /64 (X-Forwarded-For). */
    botIpv6Rotation?: boolean;
  },
  random: () => number = Math.random,
): AccountPlan[] {
  const arrivals = arrivalOffsetsMs(p.people, p.preQueueMs, random);
  const people = arrivals.map((arriveAfterMs, i): AccountPlan => ({
    kind: 'person',
    index: i,
    address: personAddress(i, p.loopback),
    addressIndex: i,
    arriveAfterMs,
    reactionMs: reactionDelayMs(p.reaction, random),
  }));
  const bots = Array.from({ length: p.bots }, (_, k): AccountPlan => {
    const j = botAddressIndex(k, p.botAddresses);
    return {
      kind: 'bot',
      index: k,
      address: botAddress(j, p.loopback),
      addressIndex: j,
      arriveAfterMs: 0,
      reactionMs: 0,
      ...(p.botIpv6Rotation ? { claims: rotatedBotAddress(k) } : {}),
    };
  });
  return [...people, ...bots];
}

/** Client CPU spent on join work, per population (from the solver threads' own CPU clocks). */
export interface SolveFigures {
  solves: number;
  cpuS: number;
  /** p95 of one solve's time on its thread, and of its wait for a free solver thread (the generator's queue, not the client's). */
  solveP95Ms: number | null;
  queueP95Ms: number | null;
}

export interface PopulationFigures {
  accounts: number;
  addresses: number;
  /** Units of the orders this population's accounts were answered 201 (or CREATED) for, by the run's own records. */
  units: number;
  unitsPerAccount: number;
  /** Units over the product's stock at the start. */
  share: number;
  /** Accounts that got a ticket (a 200 to their join). */
  tickets: number;
  /** Joins refused for good (no ticket): by `status code`. */
  joinsRefused: Record<string, number>;
  /**
   * Join attempts answered 429 RATE_LIMITED (the user's join budget, or the address holding
   * joinsPerAddress live tickets), each sent again after its Retry-After.
   */
  joinsRateLimited: number;
  /** Challenge requests (join work) by answer. */
  challenges: Record<string, number>;
  /** Polls sent, and those answered 429. */
  polls: number;
  pollsRateLimited: number;
  /** Polls per second of holding a ticket (its join's answer to its last answer), over the population: what it really polled at. */
  pollsPerTicketSecond: number;
  solve: SolveFigures;
}

export interface PopulationsReport {
  people: PopulationFigures & {
    /** p95 of the join's answer → the first ADMITTED answer, over people admitted; null when none was. */
    joinToAdmissionP95Ms: number | null;
    /** p95 of arrival (before any challenge and solve) → the first ADMITTED answer. */
    arrivalToAdmissionP95Ms: number | null;
  };
  bots: PopulationFigures;
  /** The bots' units over the stock at the start. */
  botShare: number;
  /** Units per bot account over units per person account; null without bots or when people won nothing. */
  botToPersonPerAccount: number | null;
  stock: number;
  /** How client addresses were made: real loopback source addresses, or X-Forwarded-For (the target must trust it). */
  addressing: 'loopback-source' | 'x-forwarded-for';
  reactionMs: ReactionRange;
  botPollsPerSecond: number;
  preQueueS: number | null;
  joinWork: { squarings: number } | null;
  joinsPerAddress: number | null;
  /** The load generator's join-work solver threads. */
  solverThreads: number;
}

export interface PopulationTrace extends BuyerTrace {
  kind: Population;
  address: string;
  arrivedAtMs?: number;
  solves?: { cpuMs: number; wallMs: number; queueMs: number }[];
  challenges?: string[];
}

const p95 = (values: number[]): number | null =>
  values.length ? percentile(Float64Array.from(values).sort(), 95) : null;

function figures(
  traces: PopulationTrace[],
  addresses: number,
  unitsOf: (userId: string) => number,
  stock: number,
): PopulationFigures {
  const joinsRefused: Record<string, number> = {};
  const challenges: Record<string, number> = {};
  let units = 0;
  let tickets = 0;
  let polls = 0;
  let pollsRateLimited = 0;
  let joinsRateLimited = 0;
  let ticketMs = 0;
  const cpu: number[] = [];
  const wall: number[] = [];
  const queue: number[] = [];
  for (const t of traces) {
    units += unitsOf(t.userId);
    if (t.joinCompleteMs !== undefined) tickets++;
    else {
      const refusal = [...t.answers].reverse().find((a) => a.op === 'queueJoin' && a.status !== 200);
      if (refusal && !/^(SOLD_OUT|TIMED_OUT)$/.test(t.final)) {
        const key = refusal.error ? `error ${refusal.error}` : `${refusal.status} ${refusal.code ?? ''}`.trim();
        joinsRefused[key] = (joinsRefused[key] ?? 0) + 1;
      }
    }
    const last = t.answers[t.answers.length - 1];
    if (t.joinCompleteMs !== undefined && last) ticketMs += Math.max(0, last.completeMs - t.joinCompleteMs);
    for (const a of t.answers)
      if (a.op === 'queuePoll') {
        polls++;
        if (a.status === 429) pollsRateLimited++;
      } else if (a.op === 'queueJoin' && a.status === 429) joinsRateLimited++;
    for (const c of t.challenges ?? []) challenges[c] = (challenges[c] ?? 0) + 1;
    for (const s of t.solves ?? []) {
      cpu.push(s.cpuMs);
      wall.push(s.wallMs);
      queue.push(s.queueMs);
    }
  }
  return {
    accounts: traces.length,
    addresses,
    units,
    unitsPerAccount: traces.length ? units / traces.length : 0,
    share: stock > 0 ? units / stock : 0,
    tickets,
    joinsRefused,
    joinsRateLimited,
    challenges,
    polls,
    pollsRateLimited,
    pollsPerTicketSecond: ticketMs > 0 ? polls / (ticketMs / 1000) : 0,
    solve: {
      solves: cpu.length,
      cpuS: cpu.reduce((sum, ms) => sum + ms, 0) / 1000,
      solveP95Ms: p95(wall),
      queueP95Ms: p95(queue),
    },
  };
}

/**
 * Each population's winnings, from the run's own records: `ordersByUser` holds the distinct
 * orders each user was answered 201 (or CREATED) for, each of `quantity` units.
 */
export function populationsReport(
  traces: PopulationTrace[],
  run: {
    ordersByUser: ReadonlyMap<string, number>;
    quantity: number;
    stock: number;
    addressing: PopulationsReport['addressing'];
    reactionMs: ReactionRange;
    botPollsPerSecond: number;
    preQueueS?: number;
    joinWork?: number;
    joinsPerAddress?: number;
    solverThreads: number;
  },
): PopulationsReport {
  const unitsOf = (userId: string) => (run.ordersByUser.get(userId) ?? 0) * run.quantity;
  const people = traces.filter((t) => t.kind === 'person');
  const bots = traces.filter((t) => t.kind === 'bot');
  const distinct = (list: PopulationTrace[]) => new Set(list.map((t) => t.address)).size;
  const peopleFigures = figures(people, distinct(people), unitsOf, run.stock);
  const botFigures = figures(bots, distinct(bots), unitsOf, run.stock);
  const admitted = people.filter((t) => t.admittedAtMs !== undefined);
  return {
    people: {
      ...peopleFigures,
      joinToAdmissionP95Ms: p95(
        admitted.filter((t) => t.joinCompleteMs !== undefined).map((t) => t.admittedAtMs! - t.joinCompleteMs!),
      ),
      arrivalToAdmissionP95Ms: p95(
        admitted.filter((t) => t.arrivedAtMs !== undefined).map((t) => t.admittedAtMs! - t.arrivedAtMs!),
      ),
    },
    bots: botFigures,
    botShare: botFigures.share,
    botToPersonPerAccount:
      bots.length && peopleFigures.unitsPerAccount > 0
        ? botFigures.unitsPerAccount / peopleFigures.unitsPerAccount
        : null,
    stock: run.stock,
    addressing: run.addressing,
    reactionMs: run.reactionMs,
    botPollsPerSecond: run.botPollsPerSecond,
    preQueueS: run.preQueueS ?? null,
    joinWork: run.joinWork !== undefined ? { squarings: run.joinWork } : null,
    joinsPerAddress: run.joinsPerAddress ?? null,
    solverThreads: run.solverThreads,
  };
}
