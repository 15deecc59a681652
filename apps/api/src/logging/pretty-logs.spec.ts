import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRETTY_TRANSPORT, prettyLogs } from './pretty-logs';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** What a pino logger with these options writes for one line, from a real process's stdout. */
function written(options: object): string {
  // A file in the project, not `node -e`: pino resolves a transport's target from its caller's file.
  const dir = join(ROOT, '.infra', 'pretty-logs-spec');
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'log-one-line.js');
  writeFileSync(script, "const p = require('pino')(JSON.parse(process.argv[2])); p.info({ orderId: 'o1' }, 'sold');\n");
  return execFileSync(process.execPath, [script, JSON.stringify(options)], { cwd: ROOT, encoding: 'utf8' });
}

describe('pretty logs', () => {
  it('are on in development at a terminal only, unless LOG_PRETTY says', () => {
    expect(prettyLogs({}, 'development', true)).toBe(true);
    expect(prettyLogs({}, 'development', false)).toBe(false);
    expect(prettyLogs({}, 'test', true)).toBe(false);
    expect(prettyLogs({ LOG_PRETTY: 'false' }, 'development', true)).toBe(false);
    expect(prettyLogs({ LOG_PRETTY: 'true' }, 'test', false)).toBe(true);
    expect(prettyLogs({ LOG_PRETTY: '' }, 'development', true)).toBe(true);
  });

  it('are never on in production: JSON at a terminal, and LOG_PRETTY=true refused', () => {
    expect(prettyLogs({}, 'production', true)).toBe(false);
    expect(prettyLogs({ LOG_PRETTY: 'false' }, 'production', true)).toBe(false);
    expect(() => prettyLogs({ LOG_PRETTY: 'true' }, 'production', false)).toThrow(/LOG_PRETTY=true is for development/);
    expect(() => prettyLogs({ LOG_PRETTY: 'yes' }, 'development', false)).toThrow(/LOG_PRETTY must be true or false/);
  });

  it('print through pino-pretty as one readable line, where the default is a JSON line', () => {
    const json = written({});
    expect(JSON.parse(json)).toMatchObject({ level: 30, orderId: 'o1', msg: 'sold' });
    const pretty = written({
      transport: { ...PRETTY_TRANSPORT, options: { ...PRETTY_TRANSPORT.options, colorize: false } },
    });
    expect(() => JSON.parse(pretty) as unknown).toThrow();
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: sold\n\s+orderId: "o1"/);
  });
});
