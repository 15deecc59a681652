import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPublishedSecret, PUBLISHED_SECRETS } from './published-secrets';

const ROOT = join(__dirname, '../../../..');
const NAME = String.raw`\b[A-Z][A-Z0-9_]*SECRET[A-Z0-9_]*\b`;

/** Ways a secret's value gets written down in this repository. */
const PATTERNS: RegExp[] = [
  // TypeScript / YAML / JSON: a quoted value assigned to a *SECRET* name (in a shell script a
  // quoted "$VAR" or "$(openssl rand ...)" is a reference or a command, not a value)
  new RegExp(String.raw`${NAME}['"]?\s*[:=]\s*(['"\`])((?!\$)[^'"\`\n]+)\1`, 'g'),
  // .env files, Dockerfile ENV and shell assignments (a $reference is not a value)
  // (a <placeholder> is not a value either: start-up refuses it as such)
  new RegExp(String.raw`${NAME}=([^\s'"\`$#<][^\s'"\`]*)`, 'g'),
  // compose defaults (dollar, brace, NAME:-value)
  new RegExp(String.raw`\$\{${NAME}:-([^}]+)\}`, 'g'),
  // object properties named secret, and the scripts' secret flags
  /\bsecret['"]?\s*:\s*(['"`])([^'"`\n]+)\1/gi,
  /--(?:token-)?secret[ =](?!["'$<])([^\s"'`|)\]]+)/g,
];

/** Every secret-looking value written in a tracked file, with where it was found. */
function secretsInRepository(): Array<{ value: string; file: string }> {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  const found: Array<{ value: string; file: string }> = [];
  for (const file of files) {
    if (
      !/\.(ts|js|mjs|json|ya?ml|md|sh|example|env|cfg|html)$|Dockerfile$|^\.env/.test(file) ||
      file.endsWith('package-lock.json')
    )
      continue;
    let text: string;
    try {
      text = readFileSync(join(ROOT, file), 'utf8');
    } catch {
      continue; // listed but deleted in the working tree
    }
    for (const pattern of PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        const value = match[match.length - 1].trim();
        if (value && !/^(S|\.\.\.|<.*>)$/.test(value) && !value.includes('${')) found.push({ value, file });
      }
    }
  }
  return found;
}

describe('published secrets', () => {
  const found = secretsInRepository();

  it('finds the secrets the repository is known to publish (the scan works)', () => {
    const values = found.map((f) => f.value);
    expect(values).toContain('dev-only-secret-change-me');
    expect(values).toContain('demo-secret-for-the-flash-sale');
  });

  it('lists every secret value written in a tracked file, so production refuses it', () => {
    const missing = found.filter((f) => !isPublishedSecret(f.value)).map((f) => `${f.file}: ${f.value}`);
    expect(missing).toEqual([]);
  });

  it('keeps the list free of duplicates and empty values', () => {
    expect(new Set(PUBLISHED_SECRETS).size).toBe(PUBLISHED_SECRETS.length);
    expect(PUBLISHED_SECRETS.every((secret) => secret.length > 0)).toBe(true);
  });
});
