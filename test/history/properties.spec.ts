import { ALL_RULE_IDS, checkHistory } from '../../scripts/history/check-history';
import { parseHistory } from '../../scripts/history/format';
import { HistoryLog } from '../../scripts/history/writer';
import { ALONE, Fault, FAULTS, Simulation, simulate } from './support/simulated-store';
import { simulateWaitingRoom } from './support/simulated-waiting-room';

// Fewer under mutation testing (scripts/history/jest.stryker.config.js), where every mutant reruns this file.
const RUNS = Number(process.env.HISTORY_PROPERTY_RUNS ?? 300);

function judge(s: Simulation) {
  const log = new HistoryLog('simulation', s.meta.products);
  for (const op of s.ops) log.add(op);
  const { meta, ops } = parseHistory(log.toJsonl());
  return checkHistory(meta, ops, s.orders, { finalReadAtMs: s.finalReadAtMs });
}

describe('histories of a simulated store', () => {
  it(`passes ${RUNS} histories of a correct store (a fifth of them through a waiting room), each rule judging something across them`, () => {
    const judged = new Map<string, number>();
    const failures: string[] = [];
    for (let seed = 1; seed <= RUNS; seed++) {
      // Every fifth sale goes through a waiting room.
      const check = judge(seed % 5 === 0 ? simulateWaitingRoom(seed) : simulate(seed));
      for (const r of check.rules) judged.set(r.id, (judged.get(r.id) ?? 0) + r.checked);
      for (const r of check.rules.filter((x) => !x.ok))
        failures.push(`seed ${seed}: ${r.id}: ${r.examples[0] ?? 'not judged'}`);
    }
    expect(failures).toEqual([]);
    expect([...judged].filter(([, n]) => n === 0)).toEqual([]);
  });

  const faults = Object.keys(FAULTS) as Fault[];
  it(`fails ${RUNS} histories with one fault injected at random, naming a rule that fault breaks`, () => {
    const missed: string[] = [];
    const caught = new Map<Fault, number>();
    for (let seed = 1; seed <= RUNS; seed++) {
      const fault = faults[Math.floor((((seed * 2654435761) >>> 0) / 2 ** 32) * faults.length)];
      const sim = simulate(seed + 10_000, fault);
      if (!sim.injected) continue;
      const failed = judge(sim)
        .rules.filter((r) => !r.ok)
        .map((r) => r.id);
      if (failed.some((id) => (FAULTS[fault] as readonly string[]).includes(id)))
        caught.set(fault, (caught.get(fault) ?? 0) + 1);
      else missed.push(`seed ${seed + 10_000} ${fault}: failed [${failed.join(', ')}]`);
    }
    expect(missed).toEqual([]);
    // Every kind of fault was injected, and caught, many times.
    expect(faults.filter((f) => (caught.get(f) ?? 0) < Math.floor(RUNS / 60))).toEqual([]);
  });

  it('has, for each rule a store fault can break, a fault that rule alone catches', () => {
    // For each such fault, histories it broke that fail that one rule and no other: with the rule
    // removed the checker would pass them.
    const caughtAlone = ALONE.filter((fault) => {
      for (let seed = 1; seed <= Math.max(20, RUNS / 8); seed++) {
        const sim = simulate(seed + 20_000, fault);
        const failed = sim.injected
          ? judge(sim)
              .rules.filter((r) => !r.ok)
              .map((r) => r.id)
          : [];
        if (failed.length === 1 && failed[0] === FAULTS[fault][0]) return true;
      }
      return false;
    });
    expect(caughtAlone).toEqual(ALONE);
    // Every rule, the read rules and the waiting room's included.
    const alone = new Set<string>(ALONE.flatMap((f) => FAULTS[f]));
    expect(ALL_RULE_IDS.filter((id) => !alone.has(id))).toEqual([]);
  });
});
