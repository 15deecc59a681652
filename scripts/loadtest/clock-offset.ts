/*
 * This generator's clock against the API's, measured before the load starts, so that several
 * generators' histories can be put on one clock (scripts/history/clock-shift.ts).
 *
 * Why the API's Date header: no route shows the database's clock, and a generator on another
 * machine seldom may reach the database itself; every answer carries a Date, and the checker
 * already allows --skew-ms between the API hosts' clocks and the database's. The header names
 * only a whole second, so one reading bounds the offset to a second; readings sent on either side
 * of the moment the API's second changes bound it to about one round trip. Each reading gives
 * offset ∈ [second − answered, second + 1 s − sent]; the bounds of all readings are intersected,
 * and each round spreads its readings over the window in which the next change must fall.
 */
import { Agent as HttpAgent, get as httpGet, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, get as httpsGet } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClockOffset } from '../history/format';

/** One answer's evidence: sent and answered on this clock; meanwhile the reference read a time in [earliestMs, latestMs]. */
export interface ClockReading {
  sentMs: number;
  answeredMs: number;
  earliestMs: number;
  latestMs: number;
}

/**
 * Node (under Fastify) caches its Date string and drops it from a timer due when the second
 * ends: an idle server's timer fires within a millisecond or two, so for that long the header may
 * still name the second before. Measured before the load, while the API is idle.
 */
export const DATE_HEADER_LAG_MS = 5;
/** Date.now() is whole milliseconds: a moment read as t lies in [t, t + 1). */
const TICK_MS = 1;

/** The intersection of every reading's bounds on (reference − this clock). */
export class OffsetBounds {
  lowMs = -Infinity;
  highMs = Infinity;
  samples = 0;
  /** The shortest round trip seen. */
  roundTripMs = Infinity;

  add(r: ClockReading): void {
    this.lowMs = Math.max(this.lowMs, r.earliestMs - (r.answeredMs + TICK_MS));
    this.highMs = Math.min(this.highMs, r.latestMs - r.sentMs);
    this.samples++;
    this.roundTripMs = Math.min(this.roundTripMs, r.answeredMs + TICK_MS - r.sentMs);
    if (this.lowMs > this.highMs)
      throw new Error(
        `the reference clock's answers disagree (offset above ${this.lowMs} ms and below ${this.highMs} ms): it stepped during the measurement, or the answers came from several clocks`,
      );
  }

  get widthMs(): number {
    return this.highMs - this.lowMs;
  }
}

export interface MeasureOptions {
  /** Rounds of readings around a change of the reference's second. Default 4. */
  rounds?: number;
  /** Readings per round. Default 8: each round divides the window by about 7. */
  perRound?: number;
  /** Stop once the bounds are this close. Default 2 ms. */
  targetWidthMs?: number;
  /** This clock, and a way to wait until a moment of it; real ones by default. */
  now?: () => number;
  sleepUntil?: (ms: number) => Promise<void>;
}

/** Bounds the offset with readings of a reference clock that shows whole seconds (`read`). */
export async function boundOffset(read: () => Promise<ClockReading>, o: MeasureOptions = {}): Promise<OffsetBounds> {
  const now = o.now ?? Date.now;
  const sleepUntil = o.sleepUntil ?? ((ms: number) => sleep(Math.max(0, ms - Date.now())).then(() => undefined));
  const perRound = o.perRound ?? 8;
  const bounds = new OffsetBounds();
  bounds.add(await read());
  for (let round = 0; round < (o.rounds ?? 4) && bounds.widthMs > (o.targetWidthMs ?? 2); round++) {
    // The next change of the reference's second that every reading of the round can still reach.
    const secondMs = Math.ceil((now() + bounds.highMs + bounds.roundTripMs + 20) / 1000) * 1000;
    // On this clock it comes within [second − high, second − low]; a reading sees the reference
    // about half a round trip after it is sent.
    const from = secondMs - bounds.highMs - bounds.roundTripMs / 2;
    const step = bounds.widthMs / (perRound - 1);
    const readings = await Promise.all(
      Array.from({ length: perRound }, (_, i) => sleepUntil(from + i * step).then(read)),
    );
    for (const reading of readings) bounds.add(reading);
  }
  return bounds;
}

/** The API's clock against this one, by its Date header (any path answers with one; /health/live costs least). */
export async function measureApiClockOffset(baseUrl: string, o: MeasureOptions = {}): Promise<ClockOffset> {
  const url = new URL('/health/live', baseUrl);
  const https = url.protocol === 'https:';
  const agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  try {
    const bounds = await boundOffset(() => readDateHeader(url, agent, https), o);
    return {
      offsetMs: (bounds.lowMs + bounds.highMs) / 2,
      uncertaintyMs: bounds.widthMs / 2,
      against: `date-header ${url.origin}`,
      measuredAtMs: Date.now(),
      samples: bounds.samples,
    };
  } finally {
    agent.destroy();
  }
}

function readDateHeader(url: URL, agent: HttpAgent, https: boolean): Promise<ClockReading> {
  return new Promise((resolve, reject) => {
    const sentMs = Date.now();
    const answered = (res: IncomingMessage) => {
      const answeredMs = Date.now();
      res.resume();
      const secondMs = Date.parse(res.headers.date ?? '');
      if (Number.isNaN(secondMs)) reject(new Error(`${url.origin} answered without a Date header`));
      else resolve({ sentMs, answeredMs, earliestMs: secondMs, latestMs: secondMs + 1000 + DATE_HEADER_LAG_MS });
    };
    const req = https ? httpsGet(url, { agent }, answered) : httpGet(url, { agent }, answered);
    req.setTimeout(5000, () => req.destroy(new Error(`${url.origin} did not answer within 5 s`)));
    req.on('error', reject);
  });
}
