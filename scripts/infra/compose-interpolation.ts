import { ComposeFile } from './compose-rules';

/** One `$` Compose interpolates in a value: `$$` is a literal dollar and is skipped. */
interface Reference {
  /** The whole expression, e.g. `${JWT_SECRET:?set it}`. */
  text: string;
  name: string;
  /** `:-`/`-` (a default), `:?`/`?` (an error when unset), or '' (neither). */
  operator: string;
}

/** Every string in a parsed YAML value, with its path. */
function strings(value: unknown, path: string): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => strings(item, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, item]) => strings(item, `${path}.${key}`));
  return [];
}

function references(text: string): Reference[] | string {
  const found: Reference[] = [];
  for (const match of text.matchAll(/\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?])?[^}]*\}|[A-Za-z_{]?)/g)) {
    if (match[1] === '$') continue;
    if (match[2] === undefined)
      return `"${match[0]}": write \${NAME} (with a default or an error), or $$ for a literal dollar`;
    found.push({ text: match[0], name: match[2], operator: match[3] ?? '' });
  }
  return found;
}

/**
 * Compose interpolates the whole file, every profile included. A `${VAR}` with neither a default
 * nor an error becomes an empty string with only a warning: an empty password, an empty URL. So
 * every variable has a default or a `:?` error where it is used, or is required (`:?`) by a service
 * that always runs, which stops `docker compose up` before anything starts.
 */
export function interpolationProblems(compose: ComposeFile): string[] {
  const problems: string[] = [];
  const bare: Array<{ path: string; reference: Reference }> = [];
  const required = new Set<string>();
  const alwaysRuns = (service: unknown) => !Array.isArray((service as { profiles?: unknown }).profiles);
  for (const [key, value] of Object.entries(compose)) {
    for (const { path, text } of strings(value, key)) {
      const found = references(text);
      if (typeof found === 'string') {
        problems.push(`${path}: ${found}`);
        continue;
      }
      for (const reference of found) {
        if (reference.operator === '') bare.push({ path, reference });
        const service = key === 'services' ? compose.services[path.split('.')[1]] : undefined;
        if (reference.operator.endsWith('?') && service && alwaysRuns(service)) required.add(reference.name);
      }
    }
  }
  for (const { path, reference } of bare) {
    if (!required.has(reference.name))
      problems.push(
        `${path}: ${reference.text} has no default (:-) nor error (:?), and no service that always runs requires it`,
      );
  }
  return problems;
}
