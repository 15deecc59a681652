/**
 * The environment the API reads, validated at start-up. Each rule returns a message naming what
 * is wrong so a bad deployment stops with one clear line instead of failing later.
 */
import { echoOf } from './redact';

export type Env = Record<string, string | undefined>;

type Rule<T> = (raw: string | undefined, name: string) => T;

export class ConfigError extends Error {}

/** One line naming the variable; the value it got is echoed with any credentials in it redacted (a secret's not at all). */
export const fail = (name: string, expectation: string, raw: string | undefined): never => {
  throw new ConfigError(`Invalid configuration: ${name} ${expectation} (got ${echoOf(name, raw)})`);
};

export const integer =
  (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): Rule<number> =>
  (raw, name) => {
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max)
      fail(name, `must be an integer from ${min} to ${max}`, raw);
    return value;
  };

export const oneOf =
  <T extends string>(fallback: T, allowed: readonly T[]): Rule<T> =>
  (raw, name) => {
    if (raw === undefined || raw === '') return fallback;
    if (!allowed.includes(raw as T)) fail(name, `must be one of ${allowed.join(', ')}`, raw);
    return raw as T;
  };

export const bool =
  (fallback: boolean): Rule<boolean> =>
  (raw, name) => {
    if (raw === undefined || raw === '') return fallback;
    if (!['true', 'false', '1', '0'].includes(raw)) fail(name, 'must be true or false', raw);
    return raw === 'true' || raw === '1';
  };

export const url =
  (fallback: string | undefined, protocols: string[]): Rule<string> =>
  (raw, name) => {
    const value = raw === undefined || raw === '' ? fallback : raw;
    if (value === undefined) return fail(name, 'is required', raw);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_INVALID_URL') throw error;
      return fail(name, `must be a URL (${protocols.join(' or ')})`, raw);
    }
    if (!protocols.includes(parsed.protocol)) fail(name, `must use ${protocols.join(' or ')}`, raw);
    // The clients decode these with decodeURIComponent, which throws on a stray %: say so here, once.
    if (userInfo(parsed) === undefined)
      fail(name, 'has a user or password that is not valid percent-encoding (write a literal % as %25)', raw);
    return value;
  };

/** A parsed URL's user and password, percent-decoded; undefined when either is not valid percent-encoding. */
export function userInfo(parsed: URL): { username: string | undefined; password: string | undefined } | undefined {
  try {
    return {
      username: decodeURIComponent(parsed.username) || undefined,
      password: decodeURIComponent(parsed.password) || undefined,
    };
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
    return undefined;
  }
}

export const urlList =
  (protocols: string[], minimum: number): Rule<string[]> =>
  (raw, name) => {
    if (raw === undefined || raw.trim() === '') return [];
    const urls = raw.split(',').map((part) => url(undefined, protocols)(part.trim(), name));
    if (urls.length < minimum) fail(name, `needs at least ${minimum} comma-separated URLs`, raw);
    return urls;
  };

export interface HostPort {
  host: string;
  port: number;
}

/** `host:port,host:port`; at least `minimum` entries when `required`, else empty when unset. */
export const hostPortList =
  (minimum: number): Rule<HostPort[]> =>
  (raw, name) => {
    if (raw === undefined || raw.trim() === '') return [];
    const nodes = raw.split(',').map((part) => {
      const match = /^\s*([^\s:]+):(\d{1,5})\s*$/.exec(part);
      if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535)
        return fail(name, 'must be a comma-separated list of host:port', raw);
      return { host: match[1], port: Number(match[2]) };
    });
    if (nodes.length < minimum) fail(name, `needs at least ${minimum} host:port entries`, raw);
    return nodes;
  };

/** `replicas:timeoutMs`, e.g. `1:100`; undefined when unset. */
export const replicasAndTimeout: Rule<{ replicas: number; timeoutMs: number } | undefined> = (raw, name) => {
  if (raw === undefined || raw.trim() === '') return undefined;
  const match = /^\s*(\d{1,2}):(\d{1,5})\s*$/.exec(raw);
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1)
    return fail(name, 'must be replicas:timeoutMs, e.g. 1:100', raw);
  return { replicas: Number(match[1]), timeoutMs: Number(match[2]) };
};
