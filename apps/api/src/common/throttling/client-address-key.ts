import { isIPv4, isIPv6 } from 'node:net';

/** The key of a client whose address is missing or not an IP address: all such clients share it. */
export const UNKNOWN_CLIENT = 'unknown';

const MAPPED_PREFIX = '::ffff:';

/**
 * What a per-address budget or cap counts a client by (IPV6_CLIENT_PREFIX): an IPv4 address whole;
 * an IPv6 address by its first `ipv6Prefix` bits, written as the masked prefix in its canonical
 * form (RFC 5952), e.g. `2001:db8:0:1::/64`, since one home line is handed a whole /64 and could
 * otherwise rotate through 2^64 budgets; an IPv4-mapped address (`::ffff:1.2.3.4`, how a
 * dual-stack socket shows an IPv4 peer) as the IPv4 address it is. A zone id (`%eth0`) names a
 * local interface, not a client, and is dropped. Anything else (undefined, not an address) is
 * UNKNOWN_CLIENT: whoever could put garbage there shares one budget rather than minting new ones.
 */
export function clientAddressKey(address: string | undefined, ipv6Prefix: number): string {
  if (address === undefined) return UNKNOWN_CLIENT;
  if (isIPv4(address)) return address;
  // How a dual-stack listener shows every IPv4 peer: answered without taking the address apart.
  if (address.startsWith(MAPPED_PREFIX) && isIPv4(address.slice(MAPPED_PREFIX.length)))
    return address.slice(MAPPED_PREFIX.length);
  const groups = ipv6Groups(address);
  if (groups === undefined) return UNKNOWN_CLIENT;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  return `${formatIPv6(masked(groups, ipv6Prefix))}/${ipv6Prefix}`;
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped), or undefined when it is not one. */
function ipv6Groups(text: string): number[] | undefined {
  const address = text.split('%')[0];
  if (!isIPv6(address)) return undefined;
  const words = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((word) => {
          if (!word.includes('.')) return [parseInt(word, 16)];
          const [a, b, c, d] = word.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const gap = address.indexOf('::');
  if (gap < 0) return words(address);
  const head = words(address.slice(0, gap));
  const tail = words(address.slice(gap + 2));
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** The groups with every bit past the first `prefix` cleared. */
function masked(groups: number[], prefix: number): number[] {
  return groups.map((group, i) => {
    const kept = Math.min(Math.max(prefix - 16 * i, 0), 16);
    return kept === 0 ? 0 : group & ((0xffff << (16 - kept)) & 0xffff);
  });
}

/** RFC 5952: lowercase hex without leading zeros, the longest run of two or more zero groups (the first of equals) as `::`. */
function formatIPv6(groups: number[]): string {
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > best.length) best = { at: i, length: end - i };
    i = end === i ? i + 1 : end;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}
