import { isIP } from 'node:net';
import { parseCliArgs } from './cli';
import {
  arrivalOffsetsMs,
  botAddress,
  botAddressIndex,
  MAX_PEOPLE_ADDRESSES,
  parseReaction,
  personAddress,
  planAccounts,
  populationsReport,
  PopulationTrace,
} from './populations';
import { validateOptions } from './run-load-test';
import { joinRetryMs, sourceOf } from './waiting-room-driver';
import { addressingFor } from './waiting-room-run';

describe('the populations of a waiting-room run', () => {
  it('reads a reaction time as MS or MIN-MAX, and refuses anything else clearly', () => {
    expect(parseReaction('2000')).toEqual({ minMs: 2000, maxMs: 2000 });
    expect(parseReaction('1500-3000')).toEqual({ minMs: 1500, maxMs: 3000 });
    for (const bad of ['', 'fast', '1.5', '-5', '3000-1500', '1500-', '1500-3000-4000'])
      expect(() => parseReaction(bad)).toThrow(/--reaction-ms/);
  });

  it('spreads arrivals evenly over the pre-queue window, everyone at once without one', () => {
    expect(arrivalOffsetsMs(4, 1000, () => 0.5)).toEqual([125, 375, 625, 875]);
    expect(arrivalOffsetsMs(3, 0)).toEqual([0, 0, 0]);
    const spread = arrivalOffsetsMs(2000, 60_000);
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...spread)).toBeLessThan(60_000);
    // One arrival in each 30 ms slice: no second of the window gets more than its share.
    const perSecond = new Array(60).fill(0);
    for (const ms of spread) perSecond[Math.floor(ms / 1000)]++;
    expect(Math.max(...perSecond) - Math.min(...perSecond)).toBeLessThanOrEqual(2);
  });

  it('gives each person an address of its own and the bots their operator few, round-robin', () => {
    expect([0, 1, 253, 254, 1999].map((i) => personAddress(i, true))).toEqual([
      '127.0.1.1',
      '127.0.1.2',
      '127.0.1.254',
      '127.0.2.1',
      '127.0.8.222',
    ]);
    expect(personAddress(0, false)).toBe('10.0.1.1');
    expect(new Set(Array.from({ length: 2000 }, (_, i) => personAddress(i, true))).size).toBe(2000);
    expect(personAddress(MAX_PEOPLE_ADDRESSES - 1, true)).toBe('127.0.255.254');
    expect(() => personAddress(MAX_PEOPLE_ADDRESSES, true)).toThrow(RangeError);
    expect([0, 9, 254].map((j) => botAddress(j, true))).toEqual(['127.1.0.1', '127.1.0.10', '127.1.1.1']);
    expect(botAddress(0, false)).toBe('10.1.0.1');
    const perAddress = new Array(10).fill(0);
    for (let k = 0; k < 400; k++) perAddress[botAddressIndex(k, 10)]++;
    expect(perAddress).toEqual(new Array(10).fill(40));
  });

  it('plans people first, arriving over the window with a reaction, then bots at once from their addresses', () => {
    const plans = planAccounts(
      { people: 3, bots: 4, botAddresses: 2, preQueueMs: 3000, reaction: { minMs: 1500, maxMs: 3000 }, loopback: true },
      () => 0.5,
    );
    expect(plans.map((p) => [p.kind, p.address, p.arriveAfterMs, p.reactionMs])).toEqual([
      ['person', '127.0.1.1', 500, 2250],
      ['person', '127.0.1.2', 1500, 2250],
      ['person', '127.0.1.3', 2500, 2250],
      ['bot', '127.1.0.1', 0, 0],
      ['bot', '127.1.0.2', 0, 0],
      ['bot', '127.1.0.1', 0, 0],
      ['bot', '127.1.0.2', 0, 0],
    ]);
  });

  it('lets a rotating operator claim an address per bot account, all inside one IPv6 /64', () => {
    const plans = planAccounts(
      {
        people: 1,
        bots: 300,
        botAddresses: 2,
        preQueueMs: 0,
        reaction: { minMs: 0, maxMs: 0 },
        loopback: true,
        botIpv6Rotation: true,
      },
      () => 0.5,
    );
    const claims = plans.filter((p) => p.kind === 'bot').map((p) => p.claims!);
    expect(new Set(claims).size).toBe(300);
    for (const claim of claims) {
      expect(isIP(claim)).toBe(6);
      expect(claim.split(':').slice(0, 4).join(':')).toBe('2001:db8:b07:64');
    }
    // A person claims nothing; a bot sends from its loopback source and claims its own address.
    expect(plans[0].claims).toBeUndefined();
    expect(sourceOf(plans[1], 'loopback-source')).toEqual({ localAddress: '127.1.0.1', forwardedFor: claims[0] });
    expect(sourceOf(plans[0], 'loopback-source')).toEqual({ localAddress: '127.0.1.1' });
  });

  it('sends a refused join again no sooner than its whole Retry-After, jitter bounded', () => {
    expect(joinRetryMs(15_000, () => 0)).toBe(15_000);
    expect(joinRetryMs(15_000, () => 1)).toBe(18_000);
    // Longer than the queue's 5 s retry cap: waited whole, not cut to the cap.
    expect(joinRetryMs(60_000, () => 1)).toBe(65_000);
    expect(joinRetryMs(undefined, () => 0)).toBe(1000);
  });

  it('makes real source addresses against IPv4 loopback, X-Forwarded-For otherwise', () => {
    expect(addressingFor(['http://127.0.0.1:3000', 'http://localhost:3001'])).toBe('loopback-source');
    expect(addressingFor(['http://127.0.0.1:3000', 'http://10.0.0.5:3000'])).toBe('x-forwarded-for');
    expect(addressingFor(['http://[::1]:3000'])).toBe('x-forwarded-for');
  });

  it("counts each population's units from the run's own orders, per account and as a share of the stock", () => {
    const t = (userId: string, kind: 'person' | 'bot', address: string, extra: Partial<PopulationTrace> = {}) =>
      ({ userId, kind, address, answers: [], final: 'SOLD_OUT', ...extra }) as PopulationTrace;
    const traces = [
      t('p0', 'person', 'a0', { joinCompleteMs: 1000, admittedAtMs: 3000, arrivedAtMs: 500, final: 'BOUGHT' }),
      t('p1', 'person', 'a1', { joinCompleteMs: 1000, admittedAtMs: 2000, arrivedAtMs: 900, final: 'BOUGHT' }),
      t('p2', 'person', 'a2', { joinCompleteMs: 1000 }),
      t('p3', 'person', 'a3', {
        final: '403 JOIN_WORK_INVALID',
        answers: [{ op: 'queueJoin', invokeMs: 1, completeMs: 2, status: 403, code: 'JOIN_WORK_INVALID' }],
        solves: [{ cpuMs: 40, wallMs: 41, queueMs: 5 }],
      }),
      t('b0', 'bot', 'x', { joinCompleteMs: 10, final: 'BOUGHT' }),
      // Refused over joinsPerAddress twice, sent again after each Retry-After, until the sell-out.
      t('b1', 'bot', 'x', {
        final: 'SOLD_OUT',
        answers: [
          { op: 'queueJoin', invokeMs: 1, completeMs: 2, status: 429, code: 'RATE_LIMITED', retryAfterMs: 15_000 },
          { op: 'queueJoin', invokeMs: 15_002, completeMs: 15_003, status: 429, code: 'RATE_LIMITED' },
          { op: 'queueJoin', invokeMs: 30_003, completeMs: 30_004, status: 409, code: 'SOLD_OUT' },
        ],
      }),
      t('b2', 'bot', 'y', {
        joinCompleteMs: 10,
        answers: [
          { op: 'queueJoin', invokeMs: 5, completeMs: 10, status: 200, state: 'WAITING' },
          { op: 'queuePoll', invokeMs: 500, completeMs: 510, status: 200, state: 'WAITING' },
          { op: 'queuePoll', invokeMs: 1000, completeMs: 1010, status: 429, code: 'RATE_LIMITED' },
        ],
      }),
      t('b3', 'bot', 'y', { joinCompleteMs: 10 }),
    ];
    const report = populationsReport(traces, {
      ordersByUser: new Map([
        ['p0', 1],
        ['p1', 1],
        ['b0', 1],
        ['someone-else', 5],
      ]),
      quantity: 2,
      stock: 10,
      addressing: 'loopback-source',
      reactionMs: { minMs: 1500, maxMs: 3000 },
      botPollsPerSecond: 20,
      joinWork: 1000,
      solverThreads: 2,
    });
    expect(report.people).toMatchObject({
      accounts: 4,
      addresses: 4,
      units: 4,
      unitsPerAccount: 1,
      share: 0.4,
      tickets: 3,
      joinsRefused: { '403 JOIN_WORK_INVALID': 1 },
      joinsRateLimited: 0,
      joinToAdmissionP95Ms: 2000,
      arrivalToAdmissionP95Ms: 2500,
      solve: { solves: 1, cpuS: 0.04, solveP95Ms: 41, queueP95Ms: 5 },
    });
    expect(report.bots).toMatchObject({
      accounts: 4,
      addresses: 2,
      units: 2,
      unitsPerAccount: 0.5,
      share: 0.2,
      tickets: 3,
      joinsRefused: {},
      joinsRateLimited: 2,
      polls: 2,
      pollsRateLimited: 1,
      // Two polls while b2 held its ticket for 1 s (10 ms → 1010 ms); the other bots held theirs 0 s.
      pollsPerTicketSecond: 2,
    });
    expect(report.botShare).toBe(0.2);
    expect(report.botToPersonPerAccount).toBe(0.5);
    expect(report.joinWork).toEqual({ squarings: 1000 });
    const none = populationsReport([t('p0', 'person', 'a0')], { ...baseRun(), ordersByUser: new Map() });
    expect(none.people.joinToAdmissionP95Ms).toBeNull();
    expect(none.botToPersonPerAccount).toBeNull();
    expect(none.bots).toMatchObject({ accounts: 0, addresses: 0, units: 0, unitsPerAccount: 0 });
    const noBots = populationsReport([t('p0', 'person', 'a0')], { ...baseRun(), ordersByUser: new Map([['p0', 1]]) });
    expect([noBots.people.units, noBots.botShare, noBots.botToPersonPerAccount]).toEqual([1, 0, null]);
  });
});

const baseRun = () => ({
  quantity: 1,
  stock: 5,
  addressing: 'loopback-source' as const,
  reactionMs: { minMs: 0, maxMs: 0 },
  botPollsPerSecond: 20,
  solverThreads: 2,
});

describe('the populations on the command line', () => {
  const local = ['--url', 'http://127.0.0.1:3000', '--users', '2000', '--connections', '64', '--waiting-room'];

  it("reads the issue's measurement", () => {
    const o = parseCliArgs(
      [
        ...local,
        '--stock',
        '1000',
        '--duration',
        '180',
        '--pre-queue-s',
        '60',
        '--bots',
        '400',
        '--bot-addresses',
        '10',
        '--reaction-ms',
        '1500-3000',
        '--join-work',
        '20000',
        '--joins-per-address',
        '3',
        '--bot-polls-per-second',
        '20',
      ],
      {},
    );
    expect(o).toMatchObject({
      bots: 400,
      botAddresses: 10,
      preQueueS: 60,
      reactionMs: { minMs: 1500, maxMs: 3000 },
      joinWork: 20000,
      joinsPerAddress: 3,
      botPollsPerSecond: 20,
    });
    expect(() => validateOptions(o)).not.toThrow();
  });

  it.each([
    // Without a waiting room --bots runs the plain flow's populations (plain-populations.spec.ts).
    [['--bots', '10', '--bot-polls-per-second', '5'], /--bot-polls-per-second need --waiting-room/, false],
    [['--bots=-1'], /--bots must be an integer from 0/, true],
    [['--bots', '1.5'], /--bots must be an integer/, true],
    [['--bots', 'many'], /--bots must be a number, got "many"/, true],
    [['--bot-addresses', '2'], /--bot-addresses must come with --bots/, true],
    [['--bots', '5', '--bot-addresses', '6'], /--bot-addresses 6 must be at most --bots 5/, true],
    [['--bots', '5', '--bot-addresses', '0'], /--bot-addresses must be an integer from 1/, true],
    [['--bots', '5', '--bot-polls-per-second', '0'], /--bot-polls-per-second must be a positive number/, true],
    [['--pre-queue-s', '60'], /--duration 30 must be longer than --pre-queue-s 60/, true],
    [['--pre-queue-s', '2.5'], /--pre-queue-s must be an integer/, true],
    [['--join-work', '0'], /--join-work must be an integer from 1/, true],
    [['--joins-per-address', '0'], /--joins-per-address must be an integer from 1/, true],
    [['--solver-threads', '0'], /--solver-threads must be an integer from 1 to 256/, true],
    [['--solver-threads', '2'], /--solver-threads need --waiting-room/, false],
    [['--reaction-ms', '40000'], /--reaction-ms 40000 must be well under the admission TTL \(120 s\)/, true],
    [['--reaction-ms', '3000', '--admission-ttl-s', '10'], /at most 2500 ms/, true],
    [['--reaction-ms', 'soon'], /--reaction-ms must be MS or MIN-MAX/, true],
  ])('refuses %j', (flags, why, waitingRoom) => {
    const argv = [
      '--url',
      'http://127.0.0.1:3000',
      '--users',
      '20',
      '--connections',
      '4',
      '--stock',
      '5',
      '--duration',
      '30',
      ...(waitingRoom ? ['--waiting-room'] : []),
      ...flags,
    ];
    expect(() => validateOptions(parseCliArgs(argv, {}))).toThrow(why);
  });

  it('sets the door only on a product it creates', () => {
    const o = parseCliArgs(
      [...local, '--product', '42', '--duration', '60', '--join-work', '100', '--joins-per-address', '3'],
      {},
    );
    expect(() => validateOptions(o)).toThrow(
      /--join-work, --joins-per-address set the created product: they need --stock/,
    );
  });
});
