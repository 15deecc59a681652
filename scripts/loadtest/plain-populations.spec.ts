import { parseCliArgs } from './cli';
import { newTally, PlainAccount, plainPopulationsReport, purchasesWanted, tallySend } from './plain-populations';
import { shuffled } from './plain-populations-driver';
import { BOT_RESEND_MS, BOT_SENDS_PER_PURCHASE, isEarlyRetryRefusal, populationRetry } from './retry-policy';
import { validateOptions } from './run-load-test';

const policy = { maxRetries: 3, maxRetryDelayMs: 2000 };

describe('the plain flow: people and bots retrying a refused purchase', () => {
  it('has a person wait out Retry-After, never sooner, and give the purchase up after --max-retries', () => {
    expect(populationRetry('person', 1000, 0, policy, () => 0)).toEqual({ retry: true, waitMs: 1000 });
    expect(populationRetry('person', 1000, 0, policy, () => 1)).toEqual({ retry: true, waitMs: 1200 });
    // Longer than --max-retry-delay-ms: the cap bounds the jitter, not the promise.
    expect(populationRetry('person', 5000, 1, policy, () => 0.5)).toEqual({ retry: true, waitMs: 5000 });
    // No hint (a transport error): the backoff, capped.
    expect(populationRetry('person', undefined, 2, policy, () => 0)).toEqual({ retry: true, waitMs: 400 });
    expect(populationRetry('person', undefined, 5, { ...policy, maxRetries: 9 }, () => 0)).toEqual({
      retry: true,
      waitMs: 2000,
    });
    expect(populationRetry('person', 1000, 3, policy)).toEqual({ retry: false });
    expect(populationRetry('person', 1000, 0, { ...policy, maxRetries: 0 })).toEqual({ retry: false });
  });

  it('has a bot re-send at once whatever Retry-After said, up to its bound of sends', () => {
    expect(BOT_RESEND_MS).toBe(10);
    for (const retryAfterMs of [undefined, 1000, 30_000])
      expect(populationRetry('bot', retryAfterMs, 0, policy)).toEqual({ retry: true, waitMs: BOT_RESEND_MS });
    // --max-retries is a person's policy, not the bot's.
    expect(populationRetry('bot', 1000, 500, policy)).toEqual({ retry: true, waitMs: BOT_RESEND_MS });
    expect(populationRetry('bot', 1000, BOT_SENDS_PER_PURCHASE - 2, policy).retry).toBe(true);
    expect(populationRetry('bot', 1000, BOT_SENDS_PER_PURCHASE - 1, policy)).toEqual({ retry: false });
  });

  it("tells the API's early-retry refusal from a budget's", () => {
    expect(isEarlyRetryRefusal(429, 'retried before its Retry-After, nothing was done; retry after Retry-After')).toBe(
      true,
    );
    expect(isEarlyRetryRefusal(429, 'too many purchase attempts, slow down')).toBe(false);
    expect(isEarlyRetryRefusal(503, 'retried before its Retry-After')).toBe(false);
    expect(isEarlyRetryRefusal(429, undefined)).toBe(false);
  });

  it("keeps each account's requests: refusals by code, and what was sent (and refused) before a Retry-After", () => {
    const t = newTally();
    const send = (invokeMs: number, status: number, extra: object = {}) =>
      tallySend(t, {
        invokeMs,
        completeMs: invokeMs + 5,
        sample: { status, latencyMs: 5, finishedAt: invokeMs + 5, ...extra },
        ...extra,
      });
    send(1000, 201);
    send(1010, 429, { code: 'RATE_LIMITED', retryAfterMs: 1000 }); // answered at 1015: not before 2015
    // Sent early; its own Retry-After (the rest, rounded up to 1 s) tells the client 2035.
    send(1030, 429, { code: 'RATE_LIMITED', retryAfterMs: 1000, early: true });
    send(2020, 201); // before what it was last told, though the server's moment had passed
    send(2030, 0, { error: 'TIMEOUT' }); // before it too
    send(2100, 503, { code: 'OVERLOADED', retryAfterMs: 2000 }); // not before 4105
    send(3000, 409, { code: 'SOLD_OUT' });
    expect(t).toEqual({
      sent: 7,
      refused: { '429 RATE_LIMITED': 2, 'error TIMEOUT': 1, '503 OVERLOADED': 1, '409 SOLD_OUT': 1 },
      sentBeforeRetryAfter: 4,
      refusedBeforeRetryAfter: 1,
      notBeforeMs: 4105,
    });
  });

  it('starts the accounts in a random order, each once', () => {
    expect(shuffled(4, () => 0)).toEqual([1, 2, 3, 0]);
    expect(shuffled(4, () => 0.999)).toEqual([0, 1, 2, 3]);
    const order = shuffled(240);
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 240 }, (_, i) => i));
  });

  it('has each account buy up to the per-user limit, at least once', () => {
    expect([purchasesWanted(1, 1), purchasesWanted(3, 1), purchasesWanted(5, 2), purchasesWanted(1, 2)]).toEqual([
      1, 3, 2, 1,
    ]);
  });

  it("reports each population's units, requests and refusals from the run's own records", () => {
    const account = (userId: string, kind: 'person' | 'bot', address: string, sent: number, early = 0) => {
      const tally = newTally();
      Object.assign(tally, {
        sent,
        refused: sent > 2 ? { '429 RATE_LIMITED': sent - 2 } : {},
        sentBeforeRetryAfter: early,
        refusedBeforeRetryAfter: early,
      });
      return { userId, kind, address, tally } as PlainAccount;
    };
    const accounts = [
      account('p0', 'person', '127.0.1.1', 3),
      account('p1', 'person', '127.0.1.2', 2),
      account('b0', 'bot', '127.1.0.1', 100, 90),
      account('b1', 'bot', '127.1.0.1', 60, 50),
    ];
    const p = plainPopulationsReport(accounts, {
      ordersByUser: new Map([
        ['p0', 2],
        ['p1', 1],
        ['b0', 2],
      ]),
      quantity: 1,
      stock: 10,
      perUserLimit: 2,
      addressing: 'loopback-source',
      maxRetries: 3,
    });
    expect(p).toEqual({
      flow: 'plain',
      people: {
        accounts: 2,
        addresses: 2,
        units: 3,
        unitsPerAccount: 1.5,
        share: 0.3,
        atLimit: 1,
        requests: 5,
        requestsPerAccount: 2.5,
        refused: { '429 RATE_LIMITED': 1 },
        sentBeforeRetryAfter: 0,
        refusedBeforeRetryAfter: 0,
        joinToAdmissionP95Ms: null,
      },
      bots: {
        accounts: 2,
        addresses: 1,
        units: 2,
        unitsPerAccount: 1,
        share: 0.2,
        atLimit: 1,
        requests: 160,
        requestsPerAccount: 80,
        refused: { '429 RATE_LIMITED': 156 },
        sentBeforeRetryAfter: 140,
        refusedBeforeRetryAfter: 140,
      },
      botShare: 0.2,
      botToPersonPerAccount: 1 / 1.5,
      stock: 10,
      perUserLimit: 2,
      addressing: 'loopback-source',
      personMaxRetries: 3,
      botResendMs: BOT_RESEND_MS,
      botSendsPerPurchase: BOT_SENDS_PER_PURCHASE,
    });
    const noBots = plainPopulationsReport(accounts.slice(0, 2), {
      ordersByUser: new Map([['p0', 1]]),
      quantity: 1,
      stock: 10,
      perUserLimit: 1,
      addressing: 'x-forwarded-for',
      maxRetries: 3,
    });
    expect([noBots.bots.accounts, noBots.botShare, noBots.botToPersonPerAccount]).toEqual([0, 0, null]);
  });
});

describe('the plain flow with populations on the command line', () => {
  const base = ['--url', 'http://127.0.0.1:3000', '--stock', '100', '--users', '20', '--connections', '8'];

  it('reads --bots and --bot-addresses without --waiting-room, with --duration', () => {
    const o = parseCliArgs([...base, '--duration', '10', '--bots', '40', '--bot-addresses', '4'], {});
    expect(o).toMatchObject({ bots: 40, botAddresses: 4, durationS: 10 });
    expect(o.waitingRoom).toBeUndefined();
    expect(() => validateOptions(o)).not.toThrow();
    // --bots 0: the same flow with people alone, the baseline.
    expect(() => validateOptions(parseCliArgs([...base, '--duration', '10', '--bots', '0'], {}))).not.toThrow();
  });

  it.each([
    [['--requests', '100', '--bots', '4'], /--bots takes --duration \(its time bound\), not --requests/],
    [['--duration', '10', '--bots', '4', '--bot-addresses', '5'], /--bot-addresses 5 must be at most --bots 4/],
    [['--duration', '10', '--bot-addresses', '2'], /--bot-addresses must come with --bots/],
    [['--duration', '10', '--bots', '1.5'], /--bots must be an integer from 0/],
    [['--duration', '10', '--bots=-3'], /--bots must be an integer from 0/],
    [['--duration', '10', '--bots', '4', '--bot-addresses', '0'], /--bot-addresses must be an integer from 1/],
    [['--duration', '10', '--bots', '4', '--bot-polls-per-second', '5'], /--bot-polls-per-second need --waiting-room/],
    [['--duration', '10', '--bots', '4', '--reaction-ms', '100'], /--reaction-ms need --waiting-room/],
  ])('refuses %j', (extra, why) => {
    expect(() => validateOptions(parseCliArgs([...base, ...extra], {}))).toThrow(why);
  });

  it('refuses more people than it has addresses for, and an unreadable count', () => {
    const many = parseCliArgs(
      ['--url', 'http://127.0.0.1:3000', '--stock', '1', '--users', '70000', '--connections', '8', '--duration', '5'],
      {},
    );
    expect(() => validateOptions(many)).not.toThrow();
    expect(() => validateOptions({ ...many, bots: 1 })).toThrow(/--users: at most 64770 people/);
    expect(() => parseCliArgs([...base, '--duration', '10', '--bots', 'many'], {})).toThrow(
      '--bots must be a number, got "many"',
    );
  });
});
