import { followerCommand, parseCliArgs } from './cli';
import { validateOptions } from './run-load-test';
import { defaultGenerator, generatorTag } from './shared-run';

const LOAD = ['--url', 'http://api:3000', '--users', '50', '--connections', '4', '--requests', '100'];
const problemsOf = (argv: string[]): string => {
  try {
    validateOptions(parseCliArgs([...LOAD, ...argv], {}));
    return '';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('a run several generators share', () => {
  it('reads the run id, role, generator and start time from the command line', () => {
    const options = parseCliArgs(
      [
        ...LOAD,
        '--run-id',
        'sale-1',
        '--role',
        'follower',
        '--product',
        '42',
        '--generator',
        'm2',
        '--start-at',
        '2030-01-15T08:00:00Z',
      ],
      {},
    );
    expect(options).toMatchObject({
      runId: 'sale-1',
      productId: '42',
      shared: { role: 'follower', generator: 'm2', startAtMs: Date.parse('2030-01-15T08:00:00Z') },
    });
    expect(parseCliArgs(LOAD, {}).shared).toBeUndefined();
    expect(parseCliArgs([...LOAD, '--run-id', 's', '--role', 'lead'], {}).shared?.generator).toBe(defaultGenerator());
  });

  it('takes a lead that creates the product, and a follower pointed at it', () => {
    expect(problemsOf(['--run-id', 'sale-1', '--role', 'lead', '--stock', '100'])).toBe('');
    expect(problemsOf(['--run-id', 'sale-1', '--role', 'follower', '--product', '42'])).toBe('');
  });

  it('refuses a shared run it could not judge as one sale, saying why', () => {
    expect(problemsOf(['--run-id', 'sale-1', '--stock', '9'])).toMatch(/--run-id needs --role lead or --role follower/);
    expect(problemsOf(['--role', 'lead', '--stock', '9'])).toMatch(/need --run-id/);
    expect(problemsOf(['--run-id', 'sale-1', '--role', 'boss', '--stock', '9'])).toMatch(
      /--role lead or --role follower/,
    );
    expect(problemsOf(['--run-id', 'sale 1', '--role', 'lead', '--stock', '9'])).toMatch(/--run-id must be 1 to 40/);
    expect(problemsOf(['--run-id', 's', '--role', 'lead', '--stock', '9', '--generator', 'a-b'])).toMatch(
      /--generator must be 1 to 40 letters, digits or _/,
    );
    expect(problemsOf(['--run-id', 's', '--role', 'follower', '--stock', '9'])).toMatch(
      /--role follower needs --product/,
    );
    expect(problemsOf(['--run-id', 's', '--role', 'lead', '--stock', '9', '--check'])).toMatch(
      /judge a shared run with npm run check-history/,
    );
    expect(problemsOf(['--run-id', 's', '--role', 'lead', '--stock', '9', '--start-at', 'soon'])).toMatch(
      /--start-at must be a date and time/,
    );
  });

  it("gives each generator users and keys no other generator's begin with", () => {
    const a = `lt-${generatorTag('sale', 'a')}-`;
    const ab = `lt-${generatorTag('sale', 'a_b')}-7`;
    expect(ab.startsWith(a)).toBe(false);
    expect(defaultGenerator()).toMatch(/^[A-Za-z0-9_]+_\d+$/);
  });

  it("tells the lead's operator the followers' command", () => {
    const options = parseCliArgs(
      [...LOAD, '--run-id', 'sale-1', '--role', 'lead', '--stock', '9', '--start-at', '2030-01-15T08:00:00Z'],
      {},
    );
    expect(followerCommand(options, '42')).toBe(
      'npm run loadtest -- --run-id sale-1 --role follower --product 42 --url http://api:3000 --start-at 2030-01-15T08:00:00.000Z --users U --connections C (--duration S | --requests R)',
    );
  });
});
