import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyEnvFile, describeEnvFile } from './env-file';
import { Env } from './env.schema';

const DIR = join(__dirname, '../../../../.infra/test-env-files');

function envFile(name: string, text: string): string {
  mkdirSync(DIR, { recursive: true });
  const file = join(DIR, `${name}-${process.pid}.env`);
  writeFileSync(file, text);
  return file;
}

describe('applyEnvFile', () => {
  it('fills what the environment lacks, keeps what it has, and never takes NODE_ENV from the file', () => {
    const env: Env = { PORT: '4000' };
    const file = envFile('mixed', 'NODE_ENV=development\nPORT=3000\nLOG_LEVEL=debug\n');
    const report = applyEnvFile(file, env)!;
    expect(env).toEqual({ PORT: '4000', LOG_LEVEL: 'debug' });
    expect(report).toEqual({ file, applied: ['LOG_LEVEL'], keptFromEnvironment: ['PORT'], refused: ['NODE_ENV'] });
    expect(describeEnvFile(report)).toBe(
      `configuration: ${file} set LOG_LEVEL; the environment's own value kept for PORT; NODE_ENV ignored (only the environment sets it)`,
    );
  });

  it('names variables only, never their values', () => {
    const env: Env = {};
    const line = describeEnvFile(
      applyEnvFile(envFile('secret', `${['JWT_SECRET', 's3cr3t-value-nobody-should-log'].join('=')}\n`), env)!,
    );
    expect(line).toContain('JWT_SECRET');
    expect(line).not.toContain('s3cr3t');
  });

  it('does nothing without a file', () => {
    expect(applyEnvFile(join(DIR, 'missing.env'), {})).toBeUndefined();
  });
});
