import { join } from 'node:path';
import { ESLint } from 'eslint';

const ROOT = join(__dirname, '../..');

// A promise dropped on the floor, and one handed where a callback's result is ignored.
const FIXTURE = `
async function save(): Promise<void> {}
export function handle(): void {
  save();
}
export function listen(on: (listener: () => void) => void): void {
  on(async () => save());
}
`;

// Files the project's tsconfig holds: ESLint lints the fixture's text in place of theirs (nothing
// is written), typed as that file would be.
const FILES = [
  'apps/api/src/main.ts',
  'libs/distributed-lock/src/index.ts',
  'scripts/loadtest/cli.ts',
  'test/support/api-client.ts',
  'bench/app/run.ts',
];

describe("eslint.config.mjs's type-checked rules", () => {
  const eslint = new ESLint({ cwd: ROOT });

  it.each(FILES)(
    'reports a floating and a misused promise as errors in %s',
    async (file) => {
      const [result] = await eslint.lintText(FIXTURE, { filePath: join(ROOT, file) });
      const errors = result.messages.filter((message) => message.severity === 2).map((message) => message.ruleId);
      expect(errors).toEqual(
        expect.arrayContaining(['@typescript-eslint/no-floating-promises', '@typescript-eslint/no-misused-promises']),
      );
    },
    60_000,
  );

  it('passes the same code once the rejection is handled and the callback returns nothing', async () => {
    const fixed = FIXTURE.replace('  save();', '  void save().catch(() => undefined);').replace(
      'on(async () => save());',
      'on(() => void save().catch(() => undefined));',
    );
    const [result] = await eslint.lintText(fixed, { filePath: join(ROOT, FILES[0]) });
    expect(result.messages).toEqual([]);
  }, 60_000);
});
