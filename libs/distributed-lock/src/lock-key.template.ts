/** A parsed `@WithLock` template such as `stock:<productId>`: literal text and placeholders. */
export type KeyTemplatePart = { literal: string } | { placeholder: string };

const PLACEHOLDER_NAME = /^[A-Za-z_$][\w$]*$/;

/** Parses a template once, at decoration time, so that a malformed one fails at start-up. */
export function parseKeyTemplate(template: string): KeyTemplatePart[] {
  if (template.length === 0) throw new Error('A lock key template must not be empty');
  const parts: KeyTemplatePart[] = [];
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf('<');
    const closeBeforeOpen = rest.indexOf('>');
    if (closeBeforeOpen !== -1 && (open === -1 || closeBeforeOpen < open)) {
      throw new Error(`Lock key template "${template}" has a '>' without a matching '<'`);
    }
    if (open === -1) {
      parts.push({ literal: rest });
      break;
    }
    if (open > 0) parts.push({ literal: rest.slice(0, open) });
    const close = rest.indexOf('>', open);
    if (close === -1) throw new Error(`Lock key template "${template}" has a '<' without a closing '>'`);
    const name = rest.slice(open + 1, close);
    if (!PLACEHOLDER_NAME.test(name)) {
      throw new Error(`Lock key template "${template}" has an invalid placeholder <${name}>`);
    }
    parts.push({ placeholder: name });
    rest = rest.slice(close + 1);
  }
  return parts;
}

/** The placeholder names of a parsed template, in order of appearance. */
export function placeholdersOf(parts: KeyTemplatePart[]): string[] {
  return parts.flatMap((part) => ('placeholder' in part ? [part.placeholder] : []));
}
