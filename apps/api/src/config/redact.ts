/**
 * A configuration value as a start-up error may show it. Start-up lines end up in supervisors'
 * logs and CI output, where a credential inside `DATABASE_URL`, `REDIS_URL`, `REDLOCK_URLS` or
 * `JWT_JWKS_URL` must not follow them. Every form a credential takes there is redacted, however
 * malformed the rest is (a malformed value is exactly the kind an error echoes):
 * - `scheme://user:password@host`: whatever stands between the scheme (or the start) and the last
 *   `@` before any credential parameter becomes `***` (`redis//:pw@host` lacks its colon);
 * - a credential query parameter (`?password=`, `&sslpassword=`, `sslkey`, `token`, ...): its value;
 * - a libpq key/value string (`host=db user=app password='a b'`): the value of a credential key.
 */
export function redactCredentials(raw: string): string {
  if (KEY_VALUE_START.test(raw)) return redactKeyValues(raw);
  return raw.split(BEFORE_ANOTHER_ADDRESS).map(redactAddress).join(',');
}

/** `"value"` with its credentials redacted, or `nothing` when unset: what an error says it got. */
export const echo = (raw: string | undefined): string =>
  raw === undefined ? 'nothing' : JSON.stringify(redactCredentials(raw));

/**
 * What an error about variable `name` says it got: a value whose variable is a secret
 * (REDIS_PASSWORD, JWT_SECRET) is all credential, so none of it is shown; anything else as echo() shows it.
 */
export const echoOf = (name: string, raw: string | undefined): string =>
  raw !== undefined && SECRET_VARIABLE.test(name) ? 'a value not shown: it is a secret' : echo(raw);

// A name ending in KEY is a key (API_KEY); one with KEY inside (REDIS_KEY_PREFIX) is not.
const SECRET_VARIABLE = /PASSWORD|SECRET|TOKEN|CREDENTIAL|(^|_)KEY$/;

/**
 * `url` with every query parameter's value replaced by `***`, names kept: for addresses that are
 * logged while running (a key set's URL), where any parameter may be a credential the provider
 * named its own way (`?code=`, `?sig=`), unlike a configuration error, which keeps plain ones readable.
 */
export function redactQueryValues(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const fragmentAt = url.indexOf('#', queryAt);
  const end = fragmentAt < 0 ? url.length : fragmentAt;
  const query = url
    .slice(queryAt + 1, end)
    .split('&')
    .map((pair) => (pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=***` : pair))
    .join('&');
  return `${url.slice(0, queryAt + 1)}${query}${fragmentAt < 0 ? '' : '#***'}`;
}

/** A parameter or key that names a credential: libpq's password, sslpassword and sslkey, and the usual others. */
const CREDENTIAL_NAME = /pass|pwd|secret|token|key|cred|auth|sig/i;

// A list is split only where another address starts, so a comma inside a password stays inside it.
const BEFORE_ANOTHER_ADDRESS = /,(?=\s*[a-z][a-z0-9+.-]*:?\/\/)/i;
const SCHEME = /^\s*[a-z][a-z0-9+.-]*:?\/\//i;
/**
 * A credential parameter and its value: the value runs up to the next `&` that starts another
 * `name=` (a stray `&` in a password is not taken for the end of it) or the end.
 */
const CREDENTIAL_PARAMETER = /([?&;]([^=&?;#\s]*)=)(.*?)(?=&[^=&\s]+=|$)/g;

function redactAddress(part: string): string {
  // The user info ends at the last `@` before the first credential parameter: an `@` inside that
  // parameter's value is not the end of a user info, and must not leave the value's tail readable.
  const at = part.lastIndexOf('@', firstCredentialParameter(part) - 1);
  const rest = (at < 0 ? part : part.slice(at)).replace(CREDENTIAL_PARAMETER, redactParameter);
  return at < 0 ? rest : `${SCHEME.exec(part)?.[0] ?? ''}***${rest}`;
}

function firstCredentialParameter(part: string): number {
  for (const match of part.matchAll(CREDENTIAL_PARAMETER)) if (CREDENTIAL_NAME.test(match[2])) return match.index;
  return part.length;
}

function redactParameter(whole: string, head: string, name: string): string {
  return CREDENTIAL_NAME.test(name) ? `${head}***` : whole;
}

// ---- libpq key/value connection strings (https://www.postgresql.org/docs/current/libpq-connect.html)

/** A string that starts as `keyword = value` does: libpq's other form of a connection string. */
const KEY_VALUE_START = /^\s*[A-Za-z_][A-Za-z0-9_]*\s*=/;

/**
 * Walks `keyword = value` pairs as libpq reads them (a value is a run of non-space characters, or
 * single-quoted with `\'` and `\\` escapes) and replaces the value of each credential keyword by
 * `***`, keeping every other pair readable. An unterminated quote runs to the end, so is redacted whole.
 */
function redactKeyValues(raw: string): string {
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const pair = /^(\s*)([^\s=]*)(\s*=\s*)?/.exec(raw.slice(i))!;
    out += pair[0];
    i += pair[0].length;
    if (pair[3] === undefined) {
      // A word without `=` (libpq would refuse it): kept, and the walk goes on after it.
      if (pair[0].length === 0) out += raw[i++];
      continue;
    }
    const end = valueEnd(raw, i);
    out += CREDENTIAL_NAME.test(pair[2]) ? '***' : raw.slice(i, end);
    i = end;
  }
  return out;
}

/** Where the value starting at `start` ends: after its closing quote, or at the next unescaped space. */
function valueEnd(raw: string, start: number): number {
  const quoted = raw[start] === "'";
  for (let i = quoted ? start + 1 : start; i < raw.length; i++) {
    if (raw[i] === '\\') i++;
    else if (quoted && raw[i] === "'") return i + 1;
    else if (!quoted && /\s/.test(raw[i])) return i;
  }
  return raw.length;
}
