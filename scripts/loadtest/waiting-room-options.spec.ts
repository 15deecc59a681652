import { parseCliArgs } from './cli';
import { validateOptions } from './run-load-test';
import { isLoopback } from './waiting-room-run';

const base = ['--stock', '50', '--users', '400', '--connections', '32'];

describe('the waiting-room flow on the command line', () => {
  it('reads its flags', () => {
    const o = parseCliArgs(
      [
        '--url',
        'http://127.0.0.1:3000',
        ...base,
        '--duration',
        '60',
        '--waiting-room',
        '--admit-per-second',
        '200',
        '--admission-ttl-s',
        '30',
      ],
      {},
    );
    expect(o).toMatchObject({ waitingRoom: true, admitPerSecond: 200, admissionTtlS: 30, durationS: 60 });
    expect(() => validateOptions(o)).not.toThrow();
  });

  it.each([
    [['--url', 'http://127.0.0.1:3000', ...base, '--requests', '100', '--waiting-room'], /takes --duration/],
    [['--url', 'http://10.0.0.5:3000', ...base, '--duration', '60', '--waiting-room'], /loopback only/],
    [
      ['--url', 'http://127.0.0.1:3000', ...base, '--duration', '60', '--waiting-room', '--admit-per-second', '1.5'],
      /--admit-per-second must be a positive integer/,
    ],
    [
      ['--url', 'http://127.0.0.1:3000', ...base, '--duration', '60', '--admit-per-second', '10'],
      /need --waiting-room/,
    ],
  ])('refuses %j', (argv, why) => {
    expect(() => validateOptions(parseCliArgs(argv, {}))).toThrow(why);
  });

  it('lets a remote target through only when asked', () => {
    expect(() =>
      validateOptions(
        parseCliArgs(
          ['--url', 'http://10.0.0.5:3000', ...base, '--duration', '60', '--waiting-room', '--allow-remote'],
          {},
        ),
      ),
    ).not.toThrow();
  });

  it('knows loopback hosts', () => {
    expect(
      ['http://localhost:1', 'http://127.0.0.1:1', 'http://127.9.9.9', 'http://[::1]:3000'].map(isLoopback),
    ).toEqual([true, true, true, true]);
    expect(
      ['http://10.0.0.1', 'http://128.0.0.1', 'https://api.example.com', 'http://localhost.example.com'].map(
        isLoopback,
      ),
    ).toEqual([false, false, false, false]);
  });
});
