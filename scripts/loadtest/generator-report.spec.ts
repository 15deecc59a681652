import { generatorReport, isSaturated, saturatedSeconds, SATURATION_RULE } from './generator-report';

const second = (s: number, cpuShare: number, lagP99Ms: number, wallMs = 1000) => ({
  second: s,
  wallMs,
  cpuShare,
  lagP99Ms,
});

describe('when the load generator was the limit', () => {
  it('calls a second saturated when a thread used 90 % of a core or its event loop ran 50 ms late at p99', () => {
    expect(SATURATION_RULE).toEqual({ cpuShare: 0.9, lagP99Ms: 50 });
    expect(isSaturated(second(0, 0.89, 49))).toBe(false);
    expect(isSaturated(second(0, 0.9, 0))).toBe(true);
    expect(isSaturated(second(0, 0.1, 50))).toBe(true);
  });

  it('judges a sample cut short by the end of the run by its lag alone', () => {
    expect(isSaturated(second(9, 1.0, 5, 120))).toBe(false);
    expect(isSaturated(second(9, 0.2, 80, 120))).toBe(true);
  });

  it('marks a second when any thread was saturated in it', () => {
    const threads = [
      [second(0, 0.3, 2), second(1, 0.95, 2), second(2, 0.3, 2)],
      [second(0, 0.3, 2), second(1, 0.3, 2), second(2, 0.3, 70), second(3, 0.95, 1, 200)],
    ];
    expect(saturatedSeconds(threads)).toEqual([1, 2]);
  });

  it("reports CPU per request for the process and each thread, beside the servers'", () => {
    const report = generatorReport(
      [
        { cpuMs: 300, requests: 10_000, lagP99Ms: 3, lagMaxMs: 9, seconds: [second(0, 0.3, 3)] },
        { cpuMs: 500, requests: 10_000, lagP99Ms: 4, lagMaxMs: 60, seconds: [second(0, 0.5, 60)] },
      ],
      1000,
      1000,
      4,
    );
    expect(report).toMatchObject({ workers: 2, cpuS: 1, cpuPerRequestMs: 0.05, saturatedSeconds: [0] });
    expect(report.perWorker.map((w) => [w.cpuPerRequestMs, w.cpuShare])).toEqual([
      [0.03, 0.3],
      [0.05, 0.5],
    ]);
    expect(report.server).toEqual({ cpuS: 4, cpuPerRequestMs: 0.2 });
  });
});
