import { BlockList, isIP } from 'node:net';
import { ConfigError, fail, integer } from './env.schema';
import { echo } from './redact';

/** Fastify's `trustProxy`: off, every hop, the last N hops, or these proxy addresses / CIDRs. */
export type TrustProxy = boolean | number | string[];

const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];
/** The widest ranges production believes: a /16 of IPv4 addresses, one /64 network of IPv6 ones. */
const NARROWEST_IPV4_PREFIX = 16;
const NARROWEST_IPV6_PREFIX = 64;

/**
 * TRUST_PROXY: off unless told, since a client that reaches the API directly must not choose the
 * address it is logged and limited by. Production believes only named proxies: `true`, a hop count
 * (every client that reaches the API directly is "one hop") and a wide range (`0.0.0.0/1`, or
 * `uniquelocal`'s 10.0.0.0/8) each let a client write its own X-Forwarded-For, so each stops start-up.
 */
export function trustProxy(raw: string | undefined, production: boolean): TrustProxy {
  const trust = parse(raw);
  if (production) refuseWideTrust(trust, raw!);
  return trust;
}

function parse(raw: string | undefined): TrustProxy {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return integer(0, 0, 100)(value, 'TRUST_PROXY') || false;
  const expectation =
    'must be false, true, a hop count, or comma-separated proxy addresses/CIDRs (or loopback, linklocal, uniquelocal)';
  return value.split(',').map((part) => {
    const entry = part.trim();
    if (NAMED_RANGES.includes(entry) || prefixOf(entry) !== undefined) return entry;
    return fail('TRUST_PROXY', expectation, raw);
  });
}

function refuseWideTrust(trust: TrustProxy, raw: string): void {
  const refuse = (what: string): never => {
    throw new ConfigError(
      `Invalid configuration: TRUST_PROXY${what} lets any client choose the address it is limited and logged by, refused when NODE_ENV=production; ` +
        `name the balancer's addresses or a subnet no wider than /${NARROWEST_IPV4_PREFIX} (IPv6: /${NARROWEST_IPV6_PREFIX}), or loopback (got ${echo(raw)})`,
    );
  };
  if (trust === true) refuse('=true');
  if (typeof trust === 'number') refuse(' as a hop count');
  if (!Array.isArray(trust)) return;
  for (const entry of trust) {
    // loopback is this host alone; the other names cover private networks (10.0.0.0/8, fe80::/10).
    if (entry === 'loopback') continue;
    if (NAMED_RANGES.includes(entry) || !isNarrow(entry)) refuse(` entry ${entry}`);
  }
}

/** IPv4 clients of a dual-stack socket show as ::ffff:a.b.c.d, and an IPv6 range holding them holds those clients. */
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/** Whether a proxy entry spans at most a /16 of IPv4 addresses (IPv4-mapped ones included) or a /64 of IPv6 ones. */
function isNarrow(entry: string): boolean {
  const [address] = entry.split('/');
  const prefix = prefixOf(entry)!;
  if (isIP(address) === 4) return prefix >= NARROWEST_IPV4_PREFIX;
  if (prefix > 96 && IPV4_MAPPED.check(address, 'ipv6')) return prefix - 96 >= NARROWEST_IPV4_PREFIX;
  const range = new BlockList();
  range.addSubnet(address, prefix, 'ipv6');
  // ::/64 is "narrow" by its length, yet it holds ::ffff:0:0/96: every IPv4 client.
  return prefix >= NARROWEST_IPV6_PREFIX && !range.check('::ffff:0:0', 'ipv6');
}

/** The entry's prefix length (a bare address is a whole one: /32 or /128), or undefined when it is no address or CIDR. */
function prefixOf(entry: string): number | undefined {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (prefix === undefined) return bits;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits ? Number(prefix) : undefined;
}
