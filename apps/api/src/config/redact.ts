/**
 * A configuration value as a start-up error may show it. Start-up lines end up in supervisors'
 * logs and CI output, where a password inside `DATABASE_URL`, `REDIS_URL` or `REDLOCK_URLS` must
 * not follow them: whatever stands between an address's scheme (or its start) and its last `@` is
 * shown as `***`, however malformed the rest is (`redis//:pw@host` lacks its colon, and is exactly
 * the kind of value an error echoes).
 */
export function redactCredentials(raw: string): string {
  return raw.split(BEFORE_ANOTHER_ADDRESS).map(redactOne).join(',');
}

/** `"value"` with its credentials redacted, or `nothing` when unset: what an error says it got. */
export const echo = (raw: string | undefined): string =>
  raw === undefined ? 'nothing' : JSON.stringify(redactCredentials(raw));

// A list is split only where another address starts, so a comma inside a password stays inside it.
const BEFORE_ANOTHER_ADDRESS = /,(?=\s*[a-z][a-z0-9+.-]*:?\/\/)/i;
const SCHEME = /^\s*[a-z][a-z0-9+.-]*:?\/\//i;

function redactOne(part: string): string {
  const at = part.lastIndexOf('@');
  if (at < 0) return part;
  const scheme = SCHEME.exec(part)?.[0] ?? '';
  return `${scheme}***${part.slice(at)}`;
}
