/**
 * JSON with every object's keys in code-unit order and no white space: the text a sale's
 * commitment and its admin actions are hashed as. Postgres's jsonb keeps neither key order nor
 * spacing, so hashes are taken over this, which anyone re-derives from the values alone (the
 * verifier, scripts/queue-order, does the same in a few lines).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
}
