// Characters with a meaning in our keys (`:` separates segments, `{}` is a Cluster hash tag),
// in Redis patterns (`*?[]`), or invisible ones; `%` itself so that encoding stays reversible
// and therefore two different values can never produce the same key.
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
const RESERVED = /[%:{}*?[\]\\\s\x00-\x1f\x7f]/gu;

function percentEncode(character: string): string {
  return Array.from(Buffer.from(character, 'utf8'), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Encodes a placeholder value for use as one segment of a lock key. */
export function encodeKeySegment(value: string): string {
  return value.replace(RESERVED, percentEncode);
}
